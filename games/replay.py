"""The replay viewer's data: every position of a finished game, all hands face up.

A game is over, so nothing is hidden any more: the frames show every seat's cards, the stock
count, the discard pile, the melds on the table and, on the move that ends a hand, that hand's
showdown (melds, lay-offs, deadwood) from the engine's ``HandResult``. Frames come from
replaying the engine record (``iter_replay``), so they are exactly what was played.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from games import engine as E
from games.engine.cards import cards_of

# The server's card labels (the move sentences are written here). The browser's are in
# static/js/table/cards.js; tests/ui/test_js_units.py checks that the two agree.
SUITS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
OUTCOMES = {"knock": "knock", "gin": "gin", "big_gin": "big gin", "undercut": "undercut",
            "drawn": "drawn hand", "out": "went out", "stalemate": "stalemate"}


def card_label(text: str) -> str:
    """'7♥', '10♠', 'Q♦' (as cardLabel in cards.js)."""
    rank = "10" if text[0] == "T" else text[0]
    return rank + SUITS.get(text[1], text[1])


def _cards(cards) -> str:
    """Cards as one string of two-letter codes ("4H5H6H"), to keep the page small."""
    return "".join(c.text for c in sorted(cards))


def _layoff(arg: str) -> str:
    card, _, meld = arg.partition(">")
    return f"lays off {card_label(card)} onto meld {int(meld) + 1}"


# What a move's sentence says after the player's name, by the action's kind (its argument
# given: a card, "stock", "card>meld", "card,card,...").
MOVE_TEXT: dict[str, Callable[[str], str]] = {
    "pass": lambda arg: "passes the upcard",
    "take_upcard": lambda arg: "takes the upcard",
    "draw": lambda arg: f"draws from the {'stock' if arg == 'stock' else 'discard pile'}",
    "discard": lambda arg: f"discards {card_label(arg)}",
    "knock": lambda arg: f"knocks, discarding {card_label(arg.split('|')[0])} face down",
    "gin": lambda arg: f"goes gin, discarding {card_label(arg)} face down",
    "big_gin": lambda arg: "goes big gin",
    "layoff": _layoff,
    "accept_layoffs": lambda arg: "makes the best lay-offs",
    "done": lambda arg: "has finished laying off",
    "meld": lambda arg: f"melds {' '.join(card_label(c) for c in arg.split(','))}",
    "go_out": lambda arg: f"goes out, {card_label(arg)} face down",
}


def describe(name: str, action: str) -> str:
    """A sentence for a move: 'ann discards 7♥'."""
    kind, _, arg = action.partition(":")
    text = MOVE_TEXT.get(kind)
    return f"{name} {text(arg)}" if text else f"{name}: {action}"


def _showdown(h: E.HandResult, names: list[str]) -> dict[str, Any]:
    d = h.to_dict()
    winner = names[h.winner] if h.winner is not None and h.winner < len(names) else None
    sd = {
        "hand": h.hand_number, "outcome": h.outcome.value,
        "outcome_name": OUTCOMES.get(h.outcome.value, h.outcome.value),
        "winner": h.winner, "winner_name": winner, "points": h.points,
        "multiplier": h.multiplier, "reason": h.reason,
    }
    if h.knocker is not None:
        sd.update({
            "knocker": h.knocker, "defender": h.defender,
            "knocker_melds": d["knocker_melds"],
            "knocker_deadwood_cards": d["knocker_deadwood_cards"],
            "knocker_deadwood": h.knocker_deadwood,
            "defender_melds": d["defender_melds"],
            "defender_deadwood_cards": d["defender_deadwood_cards"],
            "defender_deadwood": h.defender_deadwood,
            "layoffs": d["layoffs"], "knock_card": h.knock_card,
        })
    if h.remaining:
        sd["remaining"] = d["remaining"]
        sd["going_rummy"] = h.going_rummy
    return sd


def _frame(state: E.GameState) -> dict[str, Any]:
    return {
        "hand": state.hand_number,
        "dealer": state.dealer,
        "to_act": state.to_act,
        "phase": state.phase.value,
        "hands": [_cards(h) for h in state.hands],
        "stock": len(state.stock),
        "discard": "".join(c.text for c in state.discard[-6:]),
        "discard_count": len(state.discard),
        "table": ["".join(c.text for c in cards_of(mm)) for _kind, mm in state.table]
        if state.family == "rummy" else [],
        "scores": state.scores,
        # Hollywood: each game's own points, as the table shows them ("118 / 103 / 138"; the
        # seat read their sum, 359, a figure no other page shows)
        "game_scores": ([[col["points"][s] for col in state.columns]
                         for s in range(state.num_players)] if len(state.columns) > 1 else None),
        "knock_limit": state.knock_limit if state.family != "rummy" else None,
        "multiplier": state.multiplier,
        "hands_done": len(state.hand_results),
    }


def names_at(names: list[str], stand_ins: Sequence[dict[str, Any]],
             took_over: Callable[[dict[str, Any]], bool]) -> list[str]:
    """The seats' names where a person had left (``stand_ins``, ``records.stand_ins``; those
    for which ``took_over`` is true): the computer that played their seat on. The replay
    asks by move (``from_ply``), the game page's score sheet by hand (``after_hands``)."""
    out = list(names)
    for s in stand_ins:
        if took_over(s) and 0 <= s["seat"] < len(out):
            out[s["seat"]] = s["name"]
    return out


def replay_data(record: E.GameRecord, names: list[str],
                stand_ins: Sequence[dict[str, Any]] = ()) -> dict[str, Any]:
    """Frames of every position (frame 0 is the first deal; frame N is after move N) and the
    hand-by-hand score sheet. ``stand_ins``: the seats the computer played on for a person
    who had left, named so from then on (the page's ``stand_ins`` for the viewer). Raises
    ``RecordError`` when the record does not replay."""
    state = record.new_state()
    frames = [{"ply": 0, "move": None, "text": "The cards are dealt", **_frame(state)}]
    seen = 0
    sheet: list[dict[str, Any]] = []
    after = state
    for i, move, after, _events in E.iter_replay(record):
        now = (names_at(names, stand_ins, lambda s, i=i: i >= s["from_ply"]) if stand_ins
               else names)
        name = now[move.seat] if move.seat < len(now) else f"seat {move.seat}"
        frame = {"ply": i + 1, "move": [move.seat, move.action],
                 "text": describe(name, move.action), **_frame(after)}
        if len(after.hand_results) > seen:
            frame["showdown"] = [_showdown(h, now) for h in after.hand_results[seen:]]
            # per game of the sheet (Hollywood's three), each seat's total after the hand
            running = E.running_totals(((h.winner, h.points, h.columns)
                                        for h in after.hand_results),
                                       len(after.columns), after.num_players)
            for n, h in enumerate(after.hand_results[seen:], start=seen):
                outcome = OUTCOMES.get(h.outcome.value, h.outcome.value)
                sheet.append({"hand": h.hand_number, "ply": i + 1,
                              "outcome": outcome[:1].upper() + outcome[1:],
                              "winner": h.winner, "points": h.points,
                              # (Oklahoma: a spade upcard doubled the hand's points)
                              "doubled": h.winner is not None and h.multiplier > 1,
                              "winner_name": (now[h.winner] if h.winner is not None
                                              and h.winner < len(now) else None),
                              "running": running[n]})
            seen = len(after.hand_results)
        frames.append(frame)
    final = after
    return {
        "mode": record.mode,
        "family": "rummy" if record.mode == "rummy" else "gin",
        "players": names,
        "stand_ins": [{"seat": s["seat"], "from_ply": s["from_ply"], "name": s["name"]}
                      for s in stand_ins],
        "frames": frames,
        "sheet": sheet,
        "result": final.result.to_dict() if final.result else None,
    }
