"""Counting a person's rated games (the tournament requirement) reads a constant number of
queries, however many games: the rule reads each player's ``left``, which the count's
query had left out (deferred), so each player cost one more query."""
from __future__ import annotations

import pytest

from leaderboards.tournaments.ratings import rated_games
from tests.support.records import make_game

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("games", [2, 8])
def test_counting_rated_games_reads_a_constant_number_of_queries(
        make_user, django_assert_max_num_queries, games):
    me = make_user("me")
    for _ in range(games):
        make_game([me, make_user()])
    with django_assert_max_num_queries(3):
        assert rated_games(me, 100) == games
