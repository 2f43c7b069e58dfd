"""What a seat (or a spectator) may see: a game as JSON-safe dicts (``view_for``,
``spectator_view``, ``running_totals``) and one move as the others read it
(``action_seen_by``)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from .errors import EngineError
from .legality import legal_actions
from .meld import sorted_meld_cards
from .phases import Phase
from .results import HandResult
from .state import GameState

__all__ = ["view_for", "spectator_view", "running_totals", "action_seen_by"]

_PUBLIC_SHOWDOWN = (
    "knocker",
    "defender",
    "kind",
    "knocker_melds",
    "knocker_deadwood_cards",
    "knocker_deadwood",
    "layoffs",
)


def view_for(state: GameState, seat: int, history: str = "hand") -> dict[str, Any]:
    """What ``seat`` may know (JSON-safe). ``history``: "hand", "game" or "none"."""
    if not 0 <= seat < state.num_players:
        raise EngineError(f"no seat {seat} in a {state.num_players}-player game")
    v = _base_view(state, seat, history)
    v["hand"] = [c.text for c in sorted(state.hands[seat])]
    v["legal_actions"] = [str(a) for a in legal_actions(state)] if state.to_act == seat else []
    return v


def spectator_view(state: GameState, history: str = "hand") -> dict[str, Any]:
    """What a spectator may know: public information only, no hand."""
    v = _base_view(state, None, history)
    v["hand"] = None
    v["legal_actions"] = []
    return v


def _base_view(s: GameState, seat: int | None, history: str) -> dict[str, Any]:
    n = s.num_players
    mode = s.mode
    v: dict[str, Any] = {
        "mode": mode.name,
        "settings": mode.to_dict(),
        "num_players": n,
        "seat": seat,
        "hand_number": s.hand_number,
        "dealer": s.dealer,
        "phase": s.phase.value,
        "to_act": s.to_act,
        "is_over": s.is_over,
        "target": s.target,
        "upcard": s.upcard.text if s.upcard else None,
        "knock_limit": s.knock_limit if mode.has_knock_limit else None,
        "multiplier": s.multiplier,
        "discard_pile": [c.text for c in s.discard],
        "stock_count": len(s.stock),
        "face_down_count": len(s.face_down),
        "card_counts": [len(h) for h in s.hands],
        "known_cards": [[c.text for c in k] for k in s.known],
        "taken_card": s.taken.text if s.taken else None,
        "table": [[c.text for c in sorted_meld_cards(kind, mm)] for kind, mm in s.table],
        "showdown": _public_showdown(s),
        "scores": s.scores,
        "score_sheet": {
            "columns": [
                {"points": list(c["points"]), "hands_won": list(c["wins"]), "over": c["over"]}
                for c in s.columns
            ],
            "hands": _sheet_rows(s.hand_results, len(s.columns), n),
        },
        "hands_won": list(s.wins),
        "last_hand": s.hand_results[-1].to_dict() if s.hand_results else None,
        "result": s.result.to_dict() if s.result else None,
        "actions_played": s.actions_played,
    }
    if mode.melds_in_play:
        v["placed"] = list(s.placed)
        v["reshuffles"] = s.reshuffles
    if history in ("game", "hand"):
        v["history"] = s.history_seen_by(seat, whole_game=history == "game")
    if s.is_over:
        v["seed"] = s.seed
    return v


def _public_showdown(s: GameState) -> dict[str, Any] | None:
    if s.showdown is None or s.phase is not Phase.LAYOFF:
        return None
    sd = s.showdown.to_dict()
    return {k: sd[k] for k in _PUBLIC_SHOWDOWN}


def running_totals(
    hands: Iterable[tuple[int | None, int, Sequence[int]]], columns: int, seats: int
) -> list[list[list[int]]]:
    """The score sheet's running totals, computed here once for the live view and the game
    page: for each hand ``(winner, points, columns it scored in)``, per score-sheet column,
    every seat's total in that column after the hand (a hand that did not score in a column
    repeats it).

    >>> running_totals([(0, 20, [0]), (None, 0, []), (1, 35, [0])], columns=1, seats=2)
    [[[20, 0]], [[20, 0]], [[20, 35]]]
    """
    running = [[0] * seats for _ in range(columns)]
    out = []
    for winner, points, scored in hands:
        if winner is not None:
            for c in scored:
                if c < columns:
                    running[c][winner] += points
        out.append([list(t) for t in running])
    return out


def _sheet_rows(results: list[HandResult], columns: int, seats: int) -> list[dict[str, Any]]:
    """One row per hand played, with its ``running`` totals (``running_totals``)."""
    totals = running_totals(((h.winner, h.points, h.columns) for h in results), columns, seats)
    return [
        {
            "hand": h.hand_number,
            "outcome": h.outcome.value,
            "winner": h.winner,
            "points": h.points,
            "going_rummy": h.going_rummy,
            "columns": list(h.columns),
            "running": running,
        }
        for h, running in zip(results, totals, strict=True)
    ]


def action_seen_by(state: GameState, action: str, actor: int | None, viewer: int | None) -> str:
    """``action``, just played by ``actor``, as ``viewer`` (None: a spectator) may see it in
    ``state``, the state it produced. A knock's card lies face down until the hand is scored,
    so everyone but the knocker reads just ``knock``."""
    if state.face_down and viewer != actor and action.startswith("knock:"):
        return "knock"
    return action
