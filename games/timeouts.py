"""The move the server plays for a player whose turn clock ran out."""
from __future__ import annotations

from games import engine as E


def safe_action(state: E.GameState) -> str:
    """The move the server plays for a player whose clock ran out.

    Pass on the upcard, draw from the stock, accept the lay-offs, go out when only that is
    left, else discard the card that leaves the least deadwood (ties: the highest card).
    """
    legal = E.legal_actions(state)
    texts = [str(a) for a in legal]
    for preferred in ("pass", "draw:stock", "accept_layoffs", "draw:discard"):
        if preferred in texts:
            return preferred
    go_out = [t for t in texts if t.startswith("go_out:")]
    if go_out:
        return go_out[0]
    discards = [a for a in legal if a.kind == E.ActionKind.DISCARD]
    if discards:
        hand = list(state.hands[state.to_act])

        def cost(a):
            rest = [c for c in hand if c != a.card]
            return (E.deadwood(rest), -a.card.value, -a.card.rank)

        return str(min(discards, key=cost))
    if "done" in texts:
        return "done"
    return texts[0]
