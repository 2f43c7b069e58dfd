"""Hollywood's match equity (``equity.MatchEquity``): the chance of winning the match that the
Expert values a hand's result by."""

from __future__ import annotations

import math
import random

import pytest

from games.bots import get_bot
from games.bots.equity import MatchEquity, ended_difference, hollywood_value, simulate_match
from games.bots.knowledge import from_view
from games.engine.modes import get_mode, gin_mode
from tests.support.bots import hollywood_view

HW = gin_mode(get_mode("hollywood"))


def column(points: list[int], wins: list[int], over: bool = False) -> dict:
    return {"points": points, "hands_won": wins, "over": over}


def test_an_untouched_sheet_is_even_and_values_points_like_points():
    eq = MatchEquity(HW, {"columns": [column([0, 0], [0, 0]) for _ in range(3)]}, [0, 0], 0)
    assert eq.base == pytest.approx(0.5)
    assert eq.value(10) == pytest.approx(10)
    assert eq.value(-10) == pytest.approx(-10)
    values = [eq.value(p) for p in range(-80, 81, 5)]
    assert values == sorted(values)
    assert all(eq.value(p) == pytest.approx(-eq.value(-p)) for p in range(1, 80))


def test_the_two_seats_chances_add_up_to_one_after_any_hand():
    rng = random.Random(3)
    for _ in range(40):
        states, _result = simulate_match(HW, rng)
        for sheet, won in states:
            mine, theirs = MatchEquity(HW, sheet, won, 0), MatchEquity(HW, sheet, won, 1)
            for p in (-45, -12, 0, 3, 30):
                assert mine.chance(p) + theirs.chance(-p) == pytest.approx(1.0)


def test_a_hand_that_ends_the_match_is_scored_as_the_engine_scores_the_sheet():
    # Games 1 and 2 are over; game 3 stands at 90-70 and any hand of mine ends it.
    cols = [
        column([110, 30], [5, 2], over=True),  # mine: +80 points, 3 more lines, game bonus
        column([40, 105], [1, 4], over=True),  # theirs
        column([90, 70], [3, 2]),
    ]
    first = ended_difference(HW, [110, 30], [5, 2], 0)
    second = ended_difference(HW, [40, 105], [1, 4], 0)
    assert first == 80 + 3 * 25 + 100
    assert second == -65 - 3 * 25 - 100
    eq = MatchEquity(HW, {"columns": cols}, [5, 4], 0)
    # My 10 ends game 3 at 100-70 with my fourth line: the sum is positive, I have won.
    assert first + second + 30 + 2 * 25 + 100 > 0
    assert eq.chance(10) == 1.0
    # Their 30 ends it at 90-100: the sum turns negative, they have won.
    assert first + second - 10 - 100 + 25 * (3 - 3) < 0
    assert eq.chance(-30) == 0.0
    # A smaller hand of theirs leaves the match open.
    assert 0.0 < eq.chance(-10) < 1.0


def test_a_shutout_doubles_the_winners_points():
    assert ended_difference(HW, [104, 0], [4, 0], 0) == 2 * 104 + 100 + 4 * 25
    assert ended_difference(HW, [104, 0], [4, 0], 1) == -(2 * 104 + 100 + 4 * 25)
    assert ended_difference(HW, [104, 10], [4, 1], 0) == 94 + 100 + 3 * 25


def test_a_game_near_its_target_is_worth_its_game_bonus_in_advance():
    """At 95-20 in game 1 I very likely take its game bonus: the match leans my way by more
    than the sheet's difference says, and points that end game 1 add little more."""
    near = {"columns": [column([95, 20], [4, 1]), column([0, 0], [0, 0]), column([0, 0], [0, 0])]}
    eq = MatchEquity(HW, near, [4, 1], 0)
    far = {"columns": [column([45, 20], [4, 1]), column([50, 0], [0, 0]), column([0, 0], [0, 0])]}
    assert eq.base > MatchEquity(HW, far, [4, 1], 0).base > 0.5
    assert eq.value(5) > 0 > eq.value(-5)


def test_the_model_predicts_simulated_matches_better_than_the_sheet_alone():
    """Log loss on simulated matches (``bench/hollywood_equity.py`` runs the full grid):
    the calibrated model against the best single normal spread of the sheet's difference."""
    rng = random.Random(17)
    data = []
    for _ in range(300):
        states, result = simulate_match(HW, rng)
        data.extend((sheet, won, result) for sheet, won in states)

    def loss(probs: list[float]) -> float:
        total = 0.0
        for p, (_s, _w, y) in zip(probs, data, strict=True):
            p = min(max(p, 1e-6), 1 - 1e-6)
            total -= y * math.log(p) + (1 - y) * math.log(1 - p)
        return total / len(data)

    def sheet_difference(sheet: dict) -> float:
        return sum(
            c["points"][0] - c["points"][1] + 25 * (c["hands_won"][0] - c["hands_won"][1])
            for c in sheet["columns"]
        )

    diffs = [sheet_difference(s) for s, _w, _y in data]
    alone = min(
        loss([0.5 * (1 + math.erf(d / sd / math.sqrt(2))) for d in diffs])
        for sd in range(100, 401, 25)
    )
    model = loss([MatchEquity(HW, s, w, 0).base for s, w, _y in data])
    assert model < alone - 0.01
    assert model < 0.55  # a coin scores 0.693


def test_the_expert_values_hollywood_hands_by_the_match_and_hard_does_not_change():
    cols = [column([60, 30], [3, 2]), column([25, 10], [2, 1]), column([0, 0], [1, 0])]
    view = hollywood_view(3, 2, cols)
    know = from_view(view)
    expert = get_bot("expert", seed=1)
    expert._set_value(view, know)
    assert isinstance(expert._value.__self__, MatchEquity)
    match = MatchEquity(HW, view["score_sheet"], [3, 2], 0)
    assert expert._val(10) == pytest.approx(match.value(10))
    old = get_bot("expert", seed=1, match_equity=False)
    old._set_value(view, know)
    assert old._val(10) == know.hand_value(10)
    # Hard's knock rule keeps valuing by the three-game total.
    assert know.hand_value(10) == hollywood_value(HW, view["score_sheet"], [3, 2], 0)(10)
