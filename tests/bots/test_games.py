"""Every level finishes seeded games of every mode and player count with legal moves only."""

from __future__ import annotations

import pytest

from games.bots import LEVELS, get_bot
from games.bots.match import play_game
from games.engine import legal_actions

FAST = {"expert": {"time_budget": 0.01, "max_samples": 8, "min_samples": 4}}

GIN_MODES = ["classic", "straight", "oklahoma", "hollywood"]


class Checked:
    """Wraps a bot and checks every answer is one of the legal actions it was offered."""

    def __init__(self, inner):
        self.inner = inner
        self.decisions = 0

    def choose(self, view, legal):
        assert [str(a) for a in legal] == view["legal_actions"]
        action = self.inner.choose(view, legal)
        assert action in legal, (action, legal)
        self.decisions += 1
        return action


def _bots(names, seed):
    return [Checked(get_bot(n, seed=f"{seed}:{i}", **FAST.get(n, {}))) for i, n in enumerate(names)]


@pytest.mark.parametrize("mode", GIN_MODES)
@pytest.mark.parametrize("level", LEVELS)
def test_level_plays_a_whole_gin_game(mode, level):
    bots = _bots([level, "medium" if level != "medium" else "hard"], seed=hash(mode) % 97)
    target = 60 if mode != "hollywood" else 40
    state = play_game(mode, bots, seed=11, settings={"target": target})
    assert state.is_over and state.result is not None
    assert legal_actions(state) == []
    assert all(b.decisions > 0 for b in bots)


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("level", LEVELS)
def test_level_plays_a_whole_rummy_game(players, level):
    others = ["easy", "medium", "hard", "expert"]
    names = [level] + [o for o in others if o != level][: players - 1]
    bots = _bots(names, seed=players)
    settings = {"targets": [[2, 40], [3, 40], [4, 40]]}
    state = play_game("rummy", bots, seed=5 + players, settings=settings)
    assert state.is_over and state.result is not None
    assert all(b.decisions > 0 for b in bots)


def test_random_bot_finishes_games_too():
    for mode, players in [("classic", 2), ("rummy", 4)]:
        bots = _bots(["random"] * players, seed=1)
        settings = {"target": 30} if mode != "rummy" else {"targets": [[2, 30], [3, 30], [4, 30]]}
        assert play_game(mode, bots, seed=3, settings=settings).is_over
