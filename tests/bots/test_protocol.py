"""Bots see only their seat's view: the protocol, get_bot and the hidden-information test."""

from __future__ import annotations

import random

import pytest

from games.bots import BOT_NAMES, LEVELS, Bot, get_bot
from games.bots.match import play_game
from games.engine import GameState, legal_actions, new_game, view_for
from tests.support.bots import decision_points as _decision_points

FAST = {"expert": {"time_budget": 5.0, "max_samples": 16, "min_samples": 16}}


def bot(name: str, seed) -> Bot:
    return get_bot(name, seed=seed, **FAST.get(name, {}))


def _reshuffle_hidden(state: GameState, seat: int, rng: random.Random) -> GameState:
    """The same state for ``seat`` with every card it cannot see moved around (and a new seed).

    Opponents keep their public cards (taken from the pile); the rest of their hands and the
    stock are redealt from the same pool, so each hand keeps its size.
    """
    d = state.to_dict()
    pool = list(d["stock"])
    keep = {}
    for s, hand in enumerate(d["hands"]):
        if s == seat:
            continue
        public = [c for c in hand if c in d["known"][s]]
        keep[s] = public
        pool.extend(c for c in hand if c not in public)
    rng.shuffle(pool)
    for s, public in keep.items():
        need = len(d["hands"][s]) - len(public)
        d["hands"][s] = public + pool[:need]
        pool = pool[need:]
    d["stock"] = pool
    d["seed"] = d["seed"] + 999
    return GameState.from_dict(d)


@pytest.mark.parametrize("name", LEVELS + ("baseline", "ginwaiter", "random"))
@pytest.mark.parametrize("mode,players", [("classic", 2), ("oklahoma", 2), ("rummy", 3)])
def test_hidden_cards_never_change_a_decision(name, mode, players):
    rng = random.Random(7)
    checked = 0
    for i, state in enumerate(_decision_points(mode, players, seed=3)):
        if i % 3:
            continue
        seat = state.to_act
        other = _reshuffle_hidden(state, seat, rng)
        assert other.to_dict()["hands"] != state.to_dict()["hands"] or players == 2
        view_a, view_b = view_for(state, seat), view_for(other, seat)
        assert view_a == view_b  # the engine shows the seat nothing of what was moved
        a = bot(name, seed=i).choose(view_a, legal_actions(state))
        b = bot(name, seed=i).choose(view_b, legal_actions(other))
        assert a == b
        checked += 1
    assert checked >= 10


@pytest.mark.parametrize("name", LEVELS + ("baseline", "random"))
def test_seeded_bots_are_deterministic(name):
    def play(seed):
        bots = [bot(name, seed=f"{seed}:0"), bot("medium", seed=f"{seed}:1")]
        s = play_game("classic", bots, seed=seed, settings={"target": 40})
        return [h.to_dict() for h in s.hand_results]

    assert play(4) == play(4)


def test_bots_only_get_the_view_and_legal_actions():
    state = new_game("classic", seed=2)
    for name in BOT_NAMES:
        b = bot(name, seed=1)
        assert isinstance(b, Bot)
        action = b.choose(view_for(state, state.to_act), legal_actions(state))
        assert action in legal_actions(state)


class Stubborn:
    """An outside bot: always the last legal action."""

    def __init__(self, rng=None):
        self.rng = rng

    def choose(self, view, legal):
        return legal[-1]


def test_get_bot_by_import_path():
    b = get_bot("tests.bots.test_protocol:Stubborn", seed=3)
    assert isinstance(b, Stubborn) and isinstance(b.rng, random.Random)
    state = new_game("classic", seed=1)
    assert b.choose(view_for(state, state.to_act), legal_actions(state)) == legal_actions(state)[-1]


@pytest.mark.parametrize(
    "name", ["", "grandmaster", "tests.bots.test_protocol:Missing", "no.such.module:Bot"]
)
def test_get_bot_rejects_unknown_names(name):
    with pytest.raises(ValueError):
        get_bot(name)


def test_get_bot_names_are_case_insensitive_and_take_options():
    assert get_bot("Hard", seed=1).name == "hard"
    assert get_bot("expert", seed=1, time_budget=0.05).time_budget == 0.05
