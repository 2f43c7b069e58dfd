"""Bots' ratings never mix with people's (docs/ratings.md, "Bots"): a person's rating never
moves because of a game against a bot; a game between bots moves both; a game between a bot
and a person moves only the bot's, against the person's rating as a fixed reference; the
people's boards never list bots and the bots' boards never list people. Through the real
rating task (eager in tests) and, once, the whole finish path of a live table."""
from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.utils import timezone

from games import services as games_services
from games.models import Game
from leaderboards.models import LeaderboardEntry, Period, Pool, Rating, RatingChange
from leaderboards.ratings import selectors, services, skill, tasks
from tests.support.accounts import make_bot
from tests.support.records import make_game
from tests.support.tables import play_one

pytestmark = pytest.mark.django_db


def _set_rating(user, rating, *, sigma=80.0, games=30, mode="classic"):
    return Rating.objects.create(
        user=user, mode=mode, mu=rating, sigma=sigma, rating=rating, provisional=False,
        games=games, last_game_at=timezone.now() - timedelta(days=1),
        deviation=int(sigma))


def _values(user, mode="classic"):
    return Rating.objects.filter(user=user, mode=mode).values(
        "mu", "sigma", "rating", "games", "last_game_at").first()


def test_a_person_facing_a_bot_keeps_their_rating_live(rooms, make_user,
                                                       django_capture_on_commit_callbacks):
    alice = make_user("alice")
    bot = make_bot(make_user("robo"))
    _set_rating(alice, 1700)
    before = _values(alice)
    with django_capture_on_commit_callbacks(execute=True):
        table = games_services.table_create_for_players(
            room=rooms["classic"], players=[bot, alice], rated=True)
        for _ in range(2):  # both move: not an abort
            play_one(table.pk, {0: bot, 1: alice})
    with django_capture_on_commit_callbacks(execute=True):
        games_services.table_resign(table_id=table.pk, user=alice)
    game = Game.objects.get(table=table)
    assert _values(alice) == before
    assert not RatingChange.objects.filter(user=alice).exists()
    change = RatingChange.objects.get(game=game)
    assert change.user_id == bot.pk and change.rating_before == 1500
    # the bot's update read alice's rating as the reference: the same maths by hand
    expected = skill.rate("classic", [skill.Skill(), skill.Skill(1700, 80)], [1, 2])[0]
    assert (change.mu_after, change.sigma_after) == pytest.approx((expected.mu, expected.sigma))
    assert Rating.objects.get(user=bot).games == 1


def test_a_game_between_bots_moves_both(make_user):
    a, b = (make_bot(make_user(f"bot{i}")) for i in range(2))
    game = make_game([a, b], places=[1, 2])
    assert tasks.game_rated(game.pk) == 1
    ra, rb = Rating.objects.get(user=a), Rating.objects.get(user=b)
    assert ra.rating > 1500 > rb.rating and ra.games == rb.games == 1
    assert RatingChange.objects.filter(game=game).count() == 2


def test_a_person_losing_to_a_bot_or_beating_one_changes_nothing_of_theirs(make_user):
    alice, bob = make_user("alice"), make_user("bob")
    bot = make_bot(make_user("robo"))
    people = make_game([alice, bob], places=[1, 2])
    tasks.game_rated(people.pk)
    after_people = (_values(alice), _values(bob))
    for places in ([1, 2], [2, 1], [1, 1]):
        tasks.game_rated(make_game([alice, bot], places=places).pk)
        tasks.game_rated(make_game([bot, bob], places=places).pk)
    assert (_values(alice), _values(bob)) == after_people
    assert Rating.objects.get(user=bot).games == 6
    # a four-player game with a bot: only the bot moves
    carol = make_user("carol")
    four = make_game([alice, bot, bob, carol], mode="rummy", places=[1, 2, 3, 4])
    tasks.game_rated(four.pk)
    assert set(RatingChange.objects.filter(game=four).values_list("user_id", flat=True)) == {
        bot.pk}
    assert not Rating.objects.filter(user__in=[alice, bob, carol], mode="rummy").exists()


def test_the_rebuild_keeps_the_pools_apart_as_the_task_does(make_user):
    rng = random.Random(25)
    people = [make_user() for _ in range(5)]
    bots = [make_bot(make_user(f"b{i}")) for i in range(3)]
    start = timezone.now() - timedelta(hours=2)
    games = []
    for i in range(40):
        players = rng.sample(people + bots, 2)
        games.append(make_game(players, places=rng.choice([[1, 2], [2, 1], [1, 1]]),
                               finished_at=start + timedelta(seconds=30 * i)))
    order = list(games)
    rng.shuffle(order)
    for g in order:
        tasks.game_rated(g.pk)

    def snapshot():
        return (sorted(Rating.objects.values_list("user_id", "mu", "sigma", "games")),
                sorted(RatingChange.objects.values_list("game_id", "user_id", "mu_after")))

    incremental = snapshot()
    mixed = [g for g in games if len({p.user.is_bot for p in g.players.all()}) == 2]
    assert mixed and all(RatingChange.objects.filter(game=g).count() == 1 for g in mixed)
    services.ratings_rebuild()
    assert snapshot() == incremental


def test_boards_never_mix(make_user, client):
    alice, bob = make_user("alice"), make_user("bob")
    robo, zed = make_bot(make_user("robo")), make_bot(make_user("zed"))
    for user, rating in ((alice, 1600), (bob, 1550), (robo, 1900), (zed, 1400)):
        _set_rating(user, rating)
    RatingChange.objects.create(
        game=make_game([robo, zed], places=[1, 2]), user=robo, mode="classic", seat=0,
        place=1, mu_before=1850, sigma_before=80, mu_after=1900, sigma_after=80,
        rating_before=1850, rating_after=1900, finished_at=timezone.now())
    assert services.leaderboard_compute(mode="classic") == 2
    people = list(LeaderboardEntry.objects.filter(pool=Pool.PEOPLE, period=Period.ALL)
                  .order_by("position").values_list("user_id", flat=True))
    bots = list(LeaderboardEntry.objects.filter(pool=Pool.BOTS, period=Period.ALL)
                .order_by("position").values_list("user_id", flat=True))
    assert people == [alice.pk, bob.pk] and bots == [robo.pk, zed.pk]
    week = LeaderboardEntry.objects.filter(period=Period.WEEK)
    assert list(week.values_list("pool", "user_id")) == [(Pool.BOTS, robo.pk)]
    assert [e.user_id for e in selectors.top_players("classic")] == [alice.pk, bob.pk]

    page = client.get("/leaderboards/?mode=classic").content.decode()
    assert "alice" in page and "robo" not in page and 'class="badge badge-bot"' not in page
    page = client.get("/leaderboards/?mode=classic&kind=bots").content.decode()
    assert "robo" in page and "zed" in page and "alice" not in page
    assert page.count('class="badge badge-bot"') == 2
    assert client.get("/leaderboards/?kind=robots").status_code == 400
    client.force_login(robo)
    page = client.get("/leaderboards/?mode=classic&kind=bots").content.decode()
    assert 'class="board-me" id="me"' in page


def test_games_against_bots_do_not_count_towards_a_persons_rated_games(make_user):
    from leaderboards.tournaments.ratings import rated_games

    alice, bob = make_user("alice"), make_user("bob")
    bot = make_bot(make_user("robo"))
    for _ in range(3):
        make_game([alice, bot], places=[1, 2])
    assert rated_games(alice, 3) == 0 and rated_games(bot, 5) == 3
    make_game([alice, bob], places=[2, 1])
    assert rated_games(alice, 3) == 1
