"""Rating finished games: which games count, idempotence, finish order, 3-4 player rankings,
the rebuild equal to the incremental path."""
from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.utils import timezone

from games.models import Ending
from leaderboards.models import Rating, RatingChange
from leaderboards.ratings import services, skill
from tests.support.records import make_game

pytestmark = pytest.mark.django_db


def _skill(user, mode="classic"):
    r = Rating.objects.get(user=user, mode=mode)
    return skill.Skill(r.mu, r.sigma)


def test_rating_a_game_twice_changes_nothing_the_second_time(make_user):
    a, b = make_user(), make_user()
    game = make_game([a, b], places=[1, 2])
    done = services.game_rate(game_id=game.pk)
    assert list(done) == [game.pk]
    first = list(Rating.objects.order_by("user_id").values())
    assert services.game_rate(game_id=game.pk) == {}
    assert list(Rating.objects.order_by("user_id").values()) == first
    assert RatingChange.objects.filter(game=game).count() == 2
    ra, rb = Rating.objects.get(user=a), Rating.objects.get(user=b)
    assert ra.games == rb.games == 1
    assert ra.rating > 1500 > rb.rating
    assert ra.rating - 1500 == 1500 - rb.rating
    change = RatingChange.objects.get(game=game, user=a)
    assert (change.rating_before, change.rating_after) == (1500, ra.rating)
    assert change.delta == ra.rating - 1500


def test_bots_casual_and_aborted_games_never_change_a_rating(make_user):
    a, b = make_user(), make_user()
    casual = make_game([a, b], rated=False)
    with_bot = make_game([a, 3], rated=True)  # cannot be made through the services, but stored
    aborted = make_game([a, b], ending=Ending.RESIGNATION, loser_seat=1, actions=[
        {"version": 2, "seat": 0, "action": "pass", "source": "player"},
    ])
    timed_out_first_move = make_game([a, b], ending=Ending.TIMEOUT, loser_seat=0, actions=[
        {"version": 2, "seat": 0, "action": "pass", "source": "timeout"},
        {"version": 3, "seat": 1, "action": "pass", "source": "player"},
    ])
    for g in (casual, with_bot, aborted, timed_out_first_move):
        assert services.game_rate(game_id=g.pk) == {}
    assert not Rating.objects.exists() and not RatingChange.objects.exists()
    # a resignation after both have moved is rated
    played = make_game([a, b], ending=Ending.RESIGNATION, loser_seat=1, places=[1, 2])
    assert list(services.game_rate(game_id=played.pk)) == [played.pk]
    assert services.game_rate(game_id=10 ** 9) == {}


def test_two_games_of_one_player_finishing_together_apply_in_finish_order(make_user):
    a, b, c = make_user(), make_user(), make_user()
    now = timezone.now()
    g1 = make_game([a, b], places=[1, 2], finished_at=now)
    g2 = make_game([a, c], places=[2, 1], finished_at=now)  # same instant: id breaks the tie
    # g2's task runs first: it applies g1 first
    done = services.game_rate(game_id=g2.pk)
    assert list(done) == [g1.pk, g2.pk]
    assert services.game_rate(game_id=g1.pk) == {}
    a1, b1 = skill.rate("classic", [skill.Skill(), skill.Skill()], [1, 2])
    a2, c2 = skill.rate("classic", [a1, skill.Skill()], [2, 1])
    assert _skill(a) == a2 and _skill(b) == b1 and _skill(c) == c2
    assert Rating.objects.get(user=a).games == 2
    assert RatingChange.objects.get(game=g2, user=a).rating_before == skill.display(a1)


def test_four_player_rummy_ranking_update(make_user):
    users = [make_user() for _ in range(4)]
    game = make_game(users, mode="rummy", places=[2, 1, 4, 2])
    services.game_rate(game_id=game.pk)
    r = {u.pk: Rating.objects.get(user=u, mode="rummy") for u in users}
    expected = skill.rate("rummy", [skill.Skill()] * 4, [2, 1, 4, 2])
    for u, e in zip(users, expected, strict=True):
        assert (r[u.pk].mu, r[u.pk].sigma) == (e.mu, e.sigma)
    assert r[users[1].pk].rating > r[users[0].pk].rating == r[users[3].pk].rating \
        > r[users[2].pk].rating
    assert not Rating.objects.filter(mode="classic").exists()  # one pool per mode


def test_three_player_game_with_places_from_live_play(make_user):
    users = [make_user() for _ in range(3)]
    game = make_game(users, mode="rummy", places=[3, 1, 2])
    services.game_rate(game_id=game.pk)
    ratings = [Rating.objects.get(user=u, mode="rummy").rating for u in users]
    assert ratings[1] > ratings[2] > ratings[0]


def test_provisional_flag_clears_after_ten_games(make_user):
    a, b = make_user(), make_user()
    start = timezone.now() - timedelta(hours=1)
    for i in range(10):
        g = make_game([a, b], places=[1 + i % 2, 2 - i % 2], finished_at=start + timedelta(
            minutes=i))
        services.game_rate(game_id=g.pk)
        r = Rating.objects.get(user=a)
        assert r.provisional == (i < 9) , (i, r.sigma)
    assert Rating.objects.get(user=a).label == str(Rating.objects.get(user=a).rating)
    assert RatingChange.objects.filter(user=a, provisional=True).count() == 9


def test_catch_up_rates_games_whose_task_was_lost(make_user):
    a, b = make_user(), make_user()
    g = make_game([a, b])
    assert services.ratings_catch_up() == 1
    assert RatingChange.objects.filter(game=g).count() == 2
    assert services.ratings_catch_up() == 0


def _snapshot():
    ratings = sorted(Rating.objects.values_list(
        "user_id", "mode", "mu", "sigma", "rating", "deviation", "provisional", "games",
        "last_game_at"))
    changes = sorted(RatingChange.objects.values_list(
        "game_id", "user_id", "mode", "seat", "place", "mu_before", "sigma_before", "mu_after",
        "sigma_after", "rating_before", "rating_after", "provisional", "finished_at"))
    return ratings, changes


def test_rebuild_equals_the_incremental_path(make_user):
    rng = random.Random(13)
    users = [make_user() for _ in range(9)]
    start = timezone.now() - timedelta(hours=3)
    games = []
    for i in range(60):
        mode = rng.choice(["classic", "rummy"])
        n = 2 if mode == "classic" else rng.choice([2, 3, 4])
        players = rng.sample(users, n)
        places = [rng.randint(1, n) for _ in range(n)]
        # some share a finish instant, some are casual or against a bot
        at = start + timedelta(seconds=rng.choice([i * 30, (i - 1) * 30]))
        rated = rng.random() > 0.1
        if rng.random() < 0.05:
            players[-1] = 2
        games.append(make_game(players, mode=mode, places=places, finished_at=at, rated=rated))
    order = list(games)
    rng.shuffle(order)  # tasks arrive in any order
    for g in order:
        services.game_rate(game_id=g.pk)
    incremental = _snapshot()
    assert len(incremental[1]) > 100
    result = services.ratings_rebuild()
    assert _snapshot() == incremental
    assert result["changes"] == len(incremental[1])
