"""Engine states for the rules tests: hand-built deals, the legal actions as text, and the
check that a refused action changes nothing."""
from __future__ import annotations

import pytest

from games.engine import Card, Deal, apply, is_legal, legal_actions, new_game

H = str.split


def game(mode="classic", deals=(), dealer=0, players=2, **settings):
    return new_game(
        mode,
        seed=1,
        num_players=players,
        dealer=dealer,
        deals=[Deal.make(*d) for d in deals],
        settings=settings or None,
    )


def play(state, *texts):
    for t in texts:
        state, _ = apply(state, t, seat=state.to_act)
    return state


# Knocker seat 1 (non-dealer): 3 deadwood (3C) once KD is drawn and knocked away.
KNOCKER = H("AS 2S 3S 4H 5H 6H 7C 7D 7H 3C")


DEFENDER_38 = H("9C 9D 9S 2D 3D 4D QS JS 8C TC")  # deadwood QS JS 8C TC = 38, nothing lays off


def knock_deal(defender=DEFENDER_38, knocker=KNOCKER, upcard="KC", stock=("KD",)):
    return (defender, knocker), upcard, stock


def legal(state):
    return [str(a) for a in legal_actions(state)]


def meld_index(state, card):
    bit = Card(card).bit
    for i, (_, mm) in enumerate(state.table):
        if mm & bit:
            return i
    raise AssertionError(card)


def assert_unchanged_on_error(state, action, exc, seat=None):
    before = state.to_dict()
    with pytest.raises(exc):
        apply(state, action, seat=state.to_act if seat is None else seat)
    assert state.to_dict() == before
    assert not is_legal(state, action, seat=state.to_act if seat is None else seat)
