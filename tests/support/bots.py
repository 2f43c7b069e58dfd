"""Helpers for bot tests: synthetic views built from cards, legal actions that match them."""

from __future__ import annotations

from games.bots import get_bot
from games.engine import Action, apply, deadwood, legal_actions, new_game, view_for

__all__ = ["decision_points", "gin_decision", "hollywood_view"]


def gin_decision(
    hand: list[str],
    *,
    pile: list[str],
    my_draws: int,
    taken: str | None = None,
    knock_limit: int = 10,
    stock: int = 20,
    mode: str = "classic",
) -> tuple[dict, list[Action]]:
    """A seat-0 view in the discard phase (11 cards) after ``my_draws`` stock draws, and the
    legal actions the engine would offer there."""
    history = [{"kind": "deal", "data": {"hand": 1, "dealer": 1, "upcard": pile[0]}}]
    history.append({"kind": "pass", "data": {"seat": 0}})
    history.append({"kind": "pass", "data": {"seat": 1}})
    for i in range(my_draws):
        history.append({"kind": "draw", "data": {"seat": 0, "source": "stock"}})
        if i < my_draws - 1:
            history.append({"kind": "discard", "data": {"seat": 0, "card": pile[0]}})
            history.append({"kind": "draw", "data": {"seat": 1, "source": "stock"}})
            history.append({"kind": "discard", "data": {"seat": 1, "card": pile[0]}})
    view = {
        "mode": mode,
        "settings": {"big_gin": True},
        "num_players": 2,
        "seat": 0,
        "phase": "discard",
        "to_act": 0,
        "knock_limit": knock_limit,
        "multiplier": 1,
        "discard_pile": pile,
        "stock_count": stock,
        "card_counts": [11, 10],
        "known_cards": [[taken] if taken else [], []],
        "taken_card": taken,
        "table": [],
        "scores": [0, 0],
        "target": 100,
        "hand": hand,
        "history": history,
    }
    legal: list[Action] = []
    knocks = []
    gins = []
    for c in sorted(hand):
        if c == taken:
            continue
        legal.append(Action.parse(f"discard:{c}"))
        d = deadwood([x for x in hand if x != c])
        if d == 0:
            gins.append(Action.parse(f"gin:{c}"))
        elif knock_limit and d <= knock_limit:
            knocks.append(Action.parse(f"knock:{c}"))
    if deadwood(hand) == 0:
        legal.append(Action.parse("big_gin"))
    view["legal_actions"] = [str(a) for a in legal + knocks + gins]
    return view, legal + knocks + gins


def decision_points(mode: str, players: int, seed: int, limit: int = 60):
    """States along a medium-vs-medium game, one per decision (up to ``limit``)."""
    state = new_game(mode, seed=seed, num_players=players)
    bots = [get_bot("medium", seed=i) for i in range(players)]
    out = []
    while not state.is_over and len(out) < limit:
        out.append(state)
        seat = state.to_act
        action = bots[seat].choose(view_for(state, seat), legal_actions(state))
        state = apply(state, action, seat)[0]
    return out


def hollywood_view(my_wins: int, their_wins: int, columns: list[dict] | None = None) -> dict:
    """Seat 0's view of a Hollywood hand, the score sheet set to give each player
    ``my_wins`` / ``their_wins`` hands won so far (by default no column near the target)."""
    view = view_for(new_game("hollywood", seed=11), 0)
    cols = columns or [{"points": [0, 0], "hands_won": [0, 0], "over": False} for _ in range(3)]
    view["score_sheet"] = {"columns": cols, "hands": []}
    view["hands_won"] = [my_wins, their_wins]
    return view
