"""Scoring: each hand's result on the score sheet, and the game's result at the end.

Every hand ending goes through ``finish_hand``: record, score sheet, game over or next deal.
"""

from __future__ import annotations

from typing import Any

from .cards import Card, mask_of
from .dealing import deal_hand
from .errors import EngineError
from .events import Event
from .meld_search import MeldResult, best_melds
from .modes import gin_mode, rummy_mode
from .phases import Phase, Showdown
from .results import ColumnResult, GameResult, HandOutcome, HandResult
from .state import GameState, emit

__all__ = [
    "finish_hand",
    "game_result",
    "score_gin",
    "score_knock",
    "score_drawn",
    "score_out",
    "score_stalemate",
]


def _hand_result(
    s: GameState, outcome: HandOutcome, *, winner: int | None, points: int, **rest: Any
) -> HandResult:
    """A hand's result with what every one says: the hand, its dealer, its upcard."""
    return HandResult(
        hand_number=s.hand_number,
        dealer=s.dealer,
        outcome=outcome,
        winner=winner,
        points=points,
        upcard=s.upcard.text if s.upcard else None,
        **rest,
    )


# ---------------------------------------------------------------------------- gin


def _showdown(s: GameState) -> Showdown:
    """The showdown being scored (a gin hand is scored only after one begins)."""
    if s.showdown is None:
        raise EngineError("no showdown to score")
    return s.showdown


def score_gin(s: GameState, events: list[Event], big: bool) -> None:
    """The knocker went gin (or big gin): bonus plus the defender's deadwood."""
    sd = _showdown(s)
    own = best_melds(mask_of(s.hands[sd.defender]))
    mode = gin_mode(s.mode)
    bonus = mode.big_gin_bonus if big else mode.gin_bonus
    _gin_hand_over(
        s,
        events,
        outcome=HandOutcome.BIG_GIN if big else HandOutcome.GIN,
        winner=sd.knocker,
        base=bonus + own.deadwood,
        own=own,
    )


def score_knock(s: GameState, events: list[Event]) -> None:
    """A knock after the lay-offs: the difference in deadwood, or the undercut."""
    sd = _showdown(s)
    d = sd.defender
    own = best_melds(mask_of(s.hands[d]))
    kdw = sd.knocker_deadwood
    mode = gin_mode(s.mode)
    if own.deadwood <= kdw:
        outcome = HandOutcome.UNDERCUT
        winner = d
        base = mode.undercut_bonus + (kdw - own.deadwood)
    else:
        outcome = HandOutcome.KNOCK
        winner = sd.knocker
        base = own.deadwood - kdw
    _gin_hand_over(s, events, outcome=outcome, winner=winner, base=base, own=own)


def _gin_hand_over(
    s: GameState,
    events: list[Event],
    *,
    outcome: HandOutcome,
    winner: int,
    base: int,
    own: MeldResult,
) -> None:
    sd = _showdown(s)
    mode = gin_mode(s.mode)
    points = base * s.multiplier
    s.wins[winner] += 1
    cols = [c for c in mode.columns_for_win(s.wins[winner]) if not s.columns[c]["over"]]
    for c in cols:
        col = s.columns[c]
        col["points"][winner] += points
        col["wins"][winner] += 1
        if col["points"][winner] >= mode.target:
            col["over"] = True
    hr = _hand_result(
        s,
        outcome,
        winner=winner,
        points=points,
        base_points=base,
        multiplier=s.multiplier,
        knock_limit=s.knock_limit,
        knocker=sd.knocker,
        knock_card=sd.knock_card,
        knocker_melds=tuple(tuple(x) for x in sd.knocker_melds),
        knocker_deadwood_cards=tuple(sd.knocker_deadwood_cards),
        knocker_deadwood=sd.knocker_deadwood,
        defender=sd.defender,
        defender_melds=tuple(tuple(m.to_list()) for m in own.melds),
        defender_deadwood_cards=tuple(c.text for c in own.deadwood_cards),
        defender_deadwood=own.deadwood,
        layoffs=tuple((c, i) for c, i in sd.layoffs),
        columns=tuple(cols),
    )
    s.dealer = winner
    finish_hand(s, events, hr)


def score_drawn(s: GameState, events: list[Event]) -> None:
    """The stock ran down to the mode's limit without a knock: nobody scores."""
    for col in s.columns:
        if not col["over"]:
            col["drawn"] = True
    hr = _hand_result(
        s,
        HandOutcome.DRAWN,
        winner=None,
        points=0,
        knock_limit=s.knock_limit,
        multiplier=s.multiplier,
        reason=f"{len(s.stock)} cards left in the stock",
    )
    finish_hand(s, events, hr)


# ---------------------------------------------------------------------------- rummy


def _remaining(s: GameState) -> tuple[tuple[str, ...], ...]:
    """Every seat's cards at the end of a rummy hand, sorted."""
    return tuple(tuple(c.text for c in sorted(h)) for h in s.hands)


def _finish_rummy_hand(s: GameState, events: list[Event], hr: HandResult) -> None:
    """A rummy hand is over, however it ended: the deal passes to the left."""
    s.dealer = (s.dealer + 1) % s.num_players
    finish_hand(s, events, hr)


def score_out(s: GameState, seat: int, events: list[Event], last: Card | None) -> None:
    """``seat`` went out: it scores the others' cards (doubled when going rummy)."""
    mode = rummy_mode(s.mode)
    base = sum(c.value for i, h in enumerate(s.hands) if i != seat for c in h)
    rummy = not s.placed[seat]
    mult = mode.going_rummy_multiplier if rummy else 1
    points = base * mult
    col = s.columns[0]
    col["points"][seat] += points
    col["wins"][seat] += 1
    s.wins[seat] += 1
    if col["points"][seat] >= mode.target_for(s.num_players):
        col["over"] = True
    hr = _hand_result(
        s,
        HandOutcome.OUT,
        winner=seat,
        points=points,
        base_points=base,
        multiplier=mult,
        going_rummy=rummy,
        knock_card=last.text if last else None,
        remaining=_remaining(s),
        columns=(0,),
    )
    _finish_rummy_hand(s, events, hr)


def score_stalemate(s: GameState, events: list[Event], reason: str) -> None:
    """Nobody can go out any more: the hand ends unscored."""
    hr = _hand_result(
        s,
        HandOutcome.STALEMATE,
        winner=None,
        points=0,
        remaining=_remaining(s),
        reason=reason,
    )
    _finish_rummy_hand(s, events, hr)


# ---------------------------------------------------------------------------- every hand


def finish_hand(s: GameState, events: list[Event], hr: HandResult) -> None:
    """One path for every hand ending: record, score sheet, game over or the next deal."""
    s.hand_results.append(hr)
    emit(s, events, Event("hand_over", hr.to_dict()))
    if all(col["over"] for col in s.columns):
        s.result = game_result(s)
        s.phase = Phase.OVER
        data = s.result.to_dict()
        data["seed"] = s.seed
        emit(s, events, Event("game_over", data))
        return
    deal_hand(s, events)


def game_result(s: GameState) -> GameResult:
    """The game's result from its score sheet (gin modes add their bonuses per column)."""
    if s.mode.column_bonuses:
        return _column_result(s)
    n = s.num_players
    totals = tuple(s.columns[0]["points"])
    winner = max(range(n), key=lambda i: totals[i])
    ordered = sorted(totals, reverse=True)
    return GameResult(s.mode.name, winner, totals, ordered[0] - ordered[1], len(s.hand_results))


def _column_result(s: GameState) -> GameResult:
    n = s.num_players
    mode = gin_mode(s.mode)
    cols = []
    grand = [0] * n
    for ci, col in enumerate(s.columns):
        pts = col["points"]
        winner = max(range(n), key=lambda i: pts[i])
        wins = col["wins"]
        shutout = all(wins[i] == 0 for i in range(n) if i != winner) and not col["drawn"]
        scored = [
            p * (mode.shutout_multiplier if shutout and i == winner else 1)
            for i, p in enumerate(pts)
        ]
        game_b = [mode.game_bonus if i == winner else 0 for i in range(n)]
        line_b = [mode.line_bonus * wins[i] for i in range(n)]
        totals = [scored[i] + game_b[i] + line_b[i] for i in range(n)]
        for i in range(n):
            grand[i] += totals[i]
        cols.append(
            ColumnResult(
                ci,
                winner,
                tuple(pts),
                tuple(wins),
                shutout,
                tuple(scored),
                tuple(game_b),
                tuple(line_b),
                tuple(totals),
            )
        )
    ordered = sorted(grand, reverse=True)
    top = [i for i in range(n) if grand[i] == ordered[0]]
    return GameResult(
        mode.name,
        top[0] if len(top) == 1 else None,
        tuple(grand),
        ordered[0] - ordered[1],
        len(s.hand_results),
        tuple(cols),
    )
