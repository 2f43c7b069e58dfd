"""The pure rating maths (leaderboards.skill): scale, direction, draws, 3-4 player rankings,
the provisional rule and bad input."""
from __future__ import annotations

import pytest

from leaderboards.ratings import skill
from leaderboards.ratings.skill import Skill


def test_new_player_shows_1500_provisional():
    new = skill.new_rating()
    assert skill.display(new) == 1500
    assert skill.deviation(new) == 350
    assert skill.is_provisional(new, 0)
    assert skill.label(1500, True) == "1500?"
    assert skill.label(1612, False) == "1612"


@pytest.mark.parametrize("mode", skill.MODES)
def test_winner_gains_loser_loses_symmetrically(mode):
    a, b = skill.rate(mode, [Skill(), Skill()], [1, 2])
    assert a.mu > 1500 > b.mu
    assert a.mu - 1500 == pytest.approx(1500 - b.mu)
    assert a.sigma < 350 and b.sigma < 350


def test_upset_moves_more_than_expected_result():
    strong, weak = Skill(1800, 100), Skill(1400, 100)
    s_win, _ = skill.rate("classic", [strong, weak], [1, 2])
    s_loss, _ = skill.rate("classic", [strong, weak], [2, 1])
    assert 0 < s_win.mu - strong.mu < strong.mu - s_loss.mu


def test_draw_between_equals_changes_nothing_but_uncertainty():
    a, b = skill.rate("rummy", [Skill(), Skill()], [1, 1])
    assert a.mu == pytest.approx(1500) and b.mu == pytest.approx(1500)
    assert a.sigma < 350


def test_draw_pulls_ratings_together():
    hi, lo = skill.rate("classic", [Skill(1700, 150), Skill(1300, 150)], [1, 1])
    assert hi.mu < 1700 and lo.mu > 1300


def test_four_player_ranking_orders_the_changes():
    after = skill.rate("rummy", [Skill()] * 4, [1, 2, 3, 4])
    mus = [s.mu for s in after]
    assert mus == sorted(mus, reverse=True)
    assert mus[0] > 1500 > mus[3]
    # a shared place: equal players who tie get equal ratings
    tied = skill.rate("rummy", [Skill()] * 3, [1, 2, 2])
    assert tied[1] == tied[2]
    assert tied[0].mu > tied[1].mu


def test_three_player_middle_place_of_equals_is_neutral():
    first, middle, last = skill.rate("rummy", [Skill()] * 3, [1, 2, 3])
    assert first.mu > 1500 > last.mu
    assert abs(middle.mu - 1500) < abs(first.mu - 1500)


def test_deterministic_floats():
    one = skill.rate("oklahoma", [Skill(1512.25, 201.5), Skill(1488.0, 199.0)], [2, 1])
    two = skill.rate("oklahoma", [Skill(1512.25, 201.5), Skill(1488.0, 199.0)], [2, 1])
    assert one == two


def test_provisional_until_threshold_or_ten_games():
    s = Skill()
    games = 0
    while skill.is_provisional(s, games):
        s, _ = skill.rate("classic", [s, Skill(1500, 120)], [1 + games % 2, 2 - games % 2])
        games += 1
    assert games == skill.PROVISIONAL_GAMES or s.sigma < skill.PROVISIONAL_SIGMA
    assert not skill.is_provisional(Skill(1500, skill.PROVISIONAL_SIGMA - 1), 0)
    assert skill.is_provisional(Skill(1500, skill.PROVISIONAL_SIGMA), 9)
    assert not skill.is_provisional(Skill(1500, 300), 10)


def test_win_probability_favours_higher_rating():
    p = skill.win_probability("classic", Skill(1700, 80), Skill(1500, 80))
    assert 0.6 < p < 0.9


@pytest.mark.parametrize("mode,skills,places", [
    ("chess", [Skill(), Skill()], [1, 2]),
    ("classic", [Skill()], [1]),
    ("classic", [Skill(), Skill()], [1]),
    ("classic", [Skill(), Skill()], [0, 1]),
])
def test_bad_input_is_refused(mode, skills, places):
    with pytest.raises(ValueError):
        skill.rate(mode, skills, places)


def test_rounding_is_half_up():
    assert skill.display(Skill(1500.5, 100)) == 1501
    assert skill.display(Skill(1500.49, 100)) == 1500
