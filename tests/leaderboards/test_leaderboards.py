"""Leaderboard snapshots (ranks with ties, activity, provisional, periods, countries), the
page (filters, pages, my row, jump to my rank, bad input), the top five and the profile."""
from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.cache import cache
from django.utils import timezone

from leaderboards.models import LeaderboardEntry, Period, Rating, RatingChange
from leaderboards.ratings import selectors, services, tasks
from tests.support.records import make_game

pytestmark = pytest.mark.django_db


def _rate(user, rating, *, mode="classic", provisional=False, days_ago=1, games=20):
    return Rating.objects.create(
        user=user, mode=mode, mu=rating, sigma=80, rating=rating, provisional=provisional,
        games=games, last_game_at=timezone.now() - timedelta(days=days_ago),
    )


def test_ties_share_a_rank_and_inactive_or_provisional_players_are_left_out(make_user):
    a, b, c, d = (make_user(country=x) for x in ("FR", "DE", "FR", ""))
    idle, new = make_user(), make_user()
    _rate(a, 1700)
    _rate(b, 1650)
    _rate(c, 1650)
    _rate(d, 1600)
    _rate(idle, 1900, days_ago=31)
    _rate(new, 1950, provisional=True)
    assert services.leaderboard_compute(mode="classic") == 4
    rows = list(LeaderboardEntry.objects.filter(mode="classic", period=Period.ALL)
                .order_by("position").values_list("user_id", "rank", "position"))
    assert rows == [(a.pk, 1, 1), (b.pk, 2, 2), (c.pk, 2, 3), (d.pk, 4, 4)]
    fr = selectors.leaderboard_page(mode="classic", country="FR")
    assert [(r.user_id, r.shown_rank) for r in fr["rows"]] == [(a.pk, 1), (c.pk, 2)]
    assert selectors.countries_on_board("classic") == ["DE", "FR"]
    assert [e.user_id for e in selectors.top_players("classic")] == [a.pk, b.pk, c.pk, d.pk]
    assert selectors.leaderboard_run("classic").players == 4


def test_best_gains_of_the_week_and_the_month(make_user):
    a, b, c = make_user(), make_user(), make_user()
    now = timezone.now()
    for user, rating in ((a, 1600), (b, 1650), (c, 1550)):
        _rate(user, rating)
    for user, before, days in ((a, 1500, 2), (b, 1640, 3), (c, 1600, 2), (b, 1600, 20)):
        g = make_game([user, make_user()], finished_at=now - timedelta(days=days))
        RatingChange.objects.create(
            game=g, user=user, mode="classic", seat=0, place=1, mu_before=before,
            sigma_before=90, mu_after=before + 5, sigma_after=89, rating_before=before,
            rating_after=before + 5, finished_at=g.finished_at)
    services.leaderboard_compute(mode="classic")
    week = list(LeaderboardEntry.objects.filter(mode="classic", period=Period.WEEK)
                .order_by("position").values_list("user_id", "gain", "rank"))
    assert week == [(a.pk, 100, 1), (b.pk, 10, 2)]  # c lost rating: not on a gains board
    month = list(LeaderboardEntry.objects.filter(mode="classic", period=Period.MONTH)
                 .order_by("position").values_list("user_id", "gain"))
    assert month == [(a.pk, 100), (b.pk, 50)]


def test_the_beat_job_takes_a_lock(make_user):
    _rate(make_user(), 1600)
    cache.add(tasks.LEADERBOARD_LOCK, 1, 60)
    try:
        assert tasks.compute() is None  # another run holds the lock
        assert not LeaderboardEntry.objects.exists()
    finally:
        cache.delete(tasks.LEADERBOARD_LOCK)
    assert tasks.compute()["classic"] == 1


def _board(n, make_user):
    users = [make_user() for _ in range(n)]
    for i, u in enumerate(users):
        _rate(u, 2000 - i)
    services.leaderboard_compute(mode="classic")
    return users


def test_page_lists_highlights_me_and_jumps_to_my_rank(make_user, client):
    users = _board(120, make_user)
    me = users[77]
    client.force_login(me)
    page = client.get("/leaderboards/?mode=classic")
    body = page.content.decode()
    assert page.status_code == 200
    assert "Page 1 of 3 (120 players)" in body
    assert f">{users[0].public_name}</a>" in body and f">{me.public_name}</a>" not in body
    assert "Jump to my rank (#78)" in body
    assert "Computed" in body
    jump = client.get("/leaderboards/?mode=classic&period=all&me=1")
    assert jump.status_code == 302 and "page=2" in jump["Location"] and jump["Location"].endswith(
        "#me")
    page2 = client.get(jump["Location"].split("#")[0]).content.decode()
    assert 'class="board-me" id="me"' in page2 and f">{me.public_name}</a>" in page2


def test_a_player_off_the_board_is_told_what_puts_them_on_it(make_user, client):
    """A player with seven rated games read only "You are not on this board"."""
    _board(3, make_user)
    me = make_user("newcomer")
    client.force_login(me)

    def note(period="all"):
        body = client.get(f"/leaderboards/?mode=classic&period={period}").content.decode()
        return body[body.index('<p class="muted small board-absence">'):].split("</p>")[0]

    assert "play rated games of Classic Gin" in note() and "within 10 rated games" in note()
    assert "play rated games of Classic Gin" in note("week")
    body = client.get("/leaderboards/?mode=classic&kind=bots").content.decode()
    assert "Only bot accounts" in body
    rating = _rate(me, 1500, provisional=True, games=7)
    # the best gains too: a provisional rating read "you are not among them", no reason
    for period in ("all", "week", "month"):
        assert "provisional, 3 more rated games at most" in note(period), period
    Rating.objects.filter(pk=rating.pk).update(
        provisional=False, games=12, last_game_at=timezone.now() - timedelta(days=40))
    assert "a rated game of Classic Gin in the last 30 days" in note()
    assert "Classic Gin rating rose over the last 7 days: yours did not" in note("week")
    assert "rose over the last 30 days" in note("month")
    Rating.objects.filter(pk=rating.pk).update(last_game_at=timezone.now())
    assert "brought up to date every few minutes" in note()


@pytest.mark.parametrize("query, reason", [
    ("mode=chess", "There is no game “chess” on the leaderboards: the games are classic, "),
    ("period=year", "There is no period “year”"), ("kind=robots", "There is no kind of board"),
    ("page=0", "A page is a number"), ("page=x", "A page is a number"),
    ("page=9", "This board has 1 page for now."), ("country=ZZ", "There is no country “ZZ”"),
    # a number of 1 or more, which it said it was not
    ("page=999999999999999999999", "This board has 1 page for now."),
    ("mode=%01" + "x" * 100, "There is no game “" + "x" * 39 + "…”"),
])
def test_bad_filters_are_answered_with_the_reason(make_user, client, query, reason):
    """A link the boards cannot follow read "Page not found": it says what is wrong."""
    _board(3, make_user)
    response = client.get(f"/leaderboards/?{query}")
    assert response.status_code == 400
    assert reason in response.content.decode()


def test_a_country_with_nobody_on_the_board_stays_chosen(make_user, client):
    """?country=FR on a board with no French player: the heading said France, the list offered
    only "Everywhere", and "Show" dropped the filter."""
    _board(3, make_user)
    body = client.get("/leaderboards/?country=FR").content.decode()
    assert '<option value="FR" selected>' in body


def test_empty_board_says_so(client):
    body = client.get("/leaderboards/").content.decode()
    assert "has not been computed yet" in body


def test_one_indexed_query_for_a_page(make_user, client, django_assert_max_num_queries):
    _board(60, make_user)
    with django_assert_max_num_queries(6):  # session-less visitor: run, page, count, countries
        assert client.get("/leaderboards/?mode=classic&page=2").status_code == 200


def test_top_five_on_home_and_room(make_user, client, rooms):
    users = _board(7, make_user)
    home = client.get("/").content.decode()
    assert "Top Classic Gin players" in home
    assert f">{users[4].public_name}</a>" in home and f">{users[5].public_name}</a>" not in home
    room = client.get(rooms["classic"].get_absolute_url()).content.decode()
    assert "Top Classic Gin players" in room


def test_profile_shows_ratings_and_a_linked_history_chart(make_user, client):
    a, b = make_user(), make_user()
    games = []
    for i in range(3):
        g = make_game([a, b], places=[1, 2], finished_at=timezone.now() - timedelta(minutes=9 - i))
        services.game_rate(game_id=g.pk)
        games.append(g)
    body = client.get(a.get_absolute_url()).content.decode()
    assert "Ratings" in body and "rating-chart-svg" in body
    for g in games:
        assert f'href="/games/{g.pk}/"' in body
    assert body.count("<circle") == 3
    r = Rating.objects.get(user=a, mode="classic")
    assert f"{r.rating}?" in body  # provisional after three games
    # a day and a change written as everywhere else ("6 Dec 2026", "−9"), not "06 Dec", "-9"
    day = timezone.localtime(games[0].finished_at)
    assert f">{day.day} {day:%b %Y}: " in body.replace("<title>", ">")
    b_body = client.get(b.get_absolute_url()).content.decode()
    assert "(\u2212" in b_body and "(-" not in b_body
    assert "No rated games yet" in client.get(make_user().get_absolute_url()).content.decode()
