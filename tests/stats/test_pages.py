"""The profile's statistics sections, head to head, My statistics, and their query budgets."""
from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from leaderboards.stats import services
from tests.support.records import hand, store_game

pytestmark = pytest.mark.django_db


def _play(people, n=6):
    ann, bob, cat, _ = people
    games = []
    now = timezone.now()
    for i in range(n):
        winner = i % 2
        games.append(store_game([ann, bob], scores=[100, 20][::1 if winner == 0 else -1],
                                winner=winner, hands=[hand(1, "gin", winner, 60)],
                                at=now - timedelta(days=3 * (n - i))))
    games.append(store_game([ann, 2], scores=[100, 5], winner=0,
                            hands=[hand(1, "knock", 0, 30, knocker=0, knocker_deadwood=4)]))
    games.append(store_game([ann, cat], mode="rummy", scores=[0, 100], winner=1,
                            hands=[hand(1, "out", 1, 100, going_rummy=True)]))
    for g in games:
        services.stats_game_record(game_id=g.pk)
    return games


def test_profile_shows_statistics_against_people(client, people):
    ann, bob, *_ = people
    _play(people)
    r = client.get(ann.get_absolute_url())
    html = r.content.decode()
    assert r.status_code == 200
    assert 'id="profile-statistics"' in html and 'id="profile-recent-games"' in html
    section = next(s for s in r.context["profile_sections"] if s.key == "statistics")
    tables = section.context["tables"]
    assert [t["opponents"] for t in tables] == ["people"]
    modes = {m["mode"]: m["stats"] for m in tables[0]["modes"]}
    assert list(modes) == ["all", "classic", "rummy"]
    assert (modes["classic"].games, modes["classic"].wins) == (6, 3)
    assert modes["all"].games == 7 and modes["rummy"].losses == 1
    # the computer game is not on the public profile
    assert modes["all"].games == 7
    assert "Results by mode" in html and "Points per hand, month by month" in html
    assert [o.opponent for o in section.context["favourites"]] == [bob, people[2]]
    # no head to head for visitors or on your own page
    assert 'id="profile-head-to-head"' not in html
    client.force_login(ann)
    assert 'id="profile-head-to-head"' not in client.get(ann.get_absolute_url()).content.decode()


def test_head_to_head_between_viewer_and_player(client, people):
    ann, bob, cat, dan = people
    _play(people)
    client.force_login(bob)
    html = client.get(ann.get_absolute_url()).content.decode()
    assert 'id="profile-head-to-head"' in html
    assert "have finished 6 games together: you won <strong>3</strong>" in html
    client.force_login(dan)
    assert 'id="profile-head-to-head"' not in client.get(ann.get_absolute_url()).content.decode()


def test_my_statistics_adds_the_computer(client, people):
    ann, *_ = people
    _play(people)
    assert client.get(reverse("stats:mine")).status_code == 302
    client.force_login(ann)
    r = client.get(reverse("stats:mine"))
    assert [t["opponents"] for t in r.context["tables"]] == ["people", "medium"]
    medium = r.context["tables"][1]["modes"][0]["stats"]
    assert (medium.games, medium.wins, medium.knocks, medium.knock_deadwood) == (1, 1, 1, 4)
    assert "Against the computer · Medium" in r.content.decode()
    # both charts count the same games, every one: the bars had been people's games only
    # while points per hand counted the computer's too
    bars = {b["name"]: (b["games"], b["wins"], b["losses"]) for b in r.context["bars"]}
    assert bars == {"Classic Gin": (7, 4, 3), "Basic Rummy": (1, 0, 1)}
    assert "Every game you finished" in r.content.decode()


def test_empty_profile_and_statistics(client, people):
    ann, *_ = people
    html = client.get(ann.get_absolute_url()).content.decode()
    assert "No finished games against people yet" in html
    client.force_login(ann)
    assert "You have not finished a game yet" in client.get(reverse("stats:mine")).content.decode()


@pytest.mark.parametrize("games", [2, 30])
def test_profile_and_archive_queries_do_not_grow(client, people, games,
                                                 django_assert_max_num_queries):
    ann, bob, *_ = people
    _play(people, n=games)
    client.force_login(bob)
    # (the profile holds the ratings and tournaments sections too, and for a logged-in
    # visitor the social buttons: the policy's facts and the contact requests, 2 queries;
    # the accuracy over analysed games, 1 query while none is analysed)
    with django_assert_max_num_queries(17):
        assert client.get(ann.get_absolute_url()).status_code == 200
    with django_assert_max_num_queries(10):
        assert client.get(reverse("games:player_games", args=["ann"])).status_code == 200
    with django_assert_max_num_queries(10):
        assert client.get(reverse("games:my_games"), {"mode": "classic"}).status_code == 200
    with django_assert_max_num_queries(7):  # (6, and the accuracy over analysed games)
        assert client.get(reverse("stats:mine")).status_code == 200


def test_points_per_hand_chart_covers_the_last_twelve_months(people):
    from leaderboards.stats import selectors

    ann, bob, *_ = people
    now = timezone.now()
    for days, points in ((500, 90), (40, 30), (2, 10)):
        g = store_game([ann, bob], scores=[100, 0], winner=0, at=now - timedelta(days=days),
                       hands=[hand(1, "knock", 0, points, knocker=0), hand(2, "drawn", None)])
        services.stats_game_record(game_id=g.pk)
    chart = selectors.points_per_hand_by_month(user=ann)
    # two hands a game; the game of 500 days ago is left out; 38 days apart: two months
    assert [p["value"] for p in chart["points"]] == [15.0, 5.0]
    assert chart["top"] == 15.0 and chart["points"][0]["y"] == 15.0
    flat = selectors.points_per_hand_by_month(user=bob)
    assert [p["value"] for p in flat["points"]] == [0.0, 0.0]
    assert flat["top"] is None  # no scale of 1.0 over a line at 0: it read as the value


def test_a_one_month_chart_names_its_month_once_under_its_point(client, people):
    import re

    ann, bob, *_ = people
    g = store_game([ann, bob], scores=[100, 0], winner=0, at=timezone.now(),
                   hands=[hand(1, "knock", 0, 30, knocker=0)])
    services.stats_game_record(game_id=g.pk)
    client.force_login(ann)
    page = client.get(reverse("stats:mine")).content.decode()
    chart = page.split('class="chart-line"', 1)[1].split("</svg>", 1)[0]
    month = timezone.localtime(g.finished_at).strftime("%b %Y")
    labels = re.findall(r'<text x="([\d.]+)" y="124"[^>]*>([^<]*)</text>', chart)
    assert labels == [("160", month)]  # the single point stands mid-axis (x = 20 + 140)
