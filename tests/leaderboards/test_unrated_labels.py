"""Issue 19, items 6-8: why a rated game is not rated is said in one voice (the game-over
panel's frame, the game page, the archive, the tournament requirement), the profile's recent
games read well for every ending, and casual or computer games show no rating."""
from __future__ import annotations

import re

import pytest

from accounts.models import User
from games import selectors as games_selectors
from games import services as games_services
from games.models import Game
from leaderboards.models import RatingChange
from leaderboards.tournaments import services as tournaments
from tests.support.records import make_game
from tests.support.tables import play_one, resigned_rated_table

REASON = "ended before both players moved"


def _aborted_rated_game(rooms, alice, bob, capture):
    """A rated game resigned after one move of one player (an abort: not rated)."""
    with capture(execute=True):
        table = games_services.table_create(user=alice, room=rooms["classic"], rated=True)
        games_services.table_sit(table_id=table.pk, user=bob)
        play_one(table.pk, {0: alice, 1: bob})
        games_services.table_resign(table_id=table.pk, user=bob)
    return table, Game.objects.get(table=table)


@pytest.mark.django_db
def test_an_aborted_rated_game_says_why_it_is_not_rated(rooms, make_user, client,
                                                          django_capture_on_commit_callbacks):
    alice, bob = make_user("alice"), make_user("bob")
    table, game = _aborted_rated_game(rooms, alice, bob, django_capture_on_commit_callbacks)
    assert game.rated and not RatingChange.objects.filter(game=game).exists()
    # the game-over panel's data (the table's finish), for both seats
    for user, seat in ((alice, 0), (bob, 1)):
        snap = games_selectors.table_snapshot(table.pk, user, seat)
        assert snap["table"]["finish"]["unrated"] == REASON
        assert [r["change"] for r in snap["ratings"]] == [None, None]
    client.force_login(alice)
    page = client.get(game.get_absolute_url()).content.decode()
    assert f"not rated: {REASON}" in page
    assert not re.search(r"rated 1\d{3}", page)  # no rating line for a game that changes none
    mine = client.get("/games/").content.decode()
    assert f"not rated: {REASON}" in mine
    assert "· rated</td>" not in mine


@pytest.mark.django_db
def test_a_rated_game_that_counts_has_no_reason(rooms, make_user, client,
                                                django_capture_on_commit_callbacks):
    alice, bob = make_user("alice"), make_user("bob")
    table = resigned_rated_table(rooms, [alice, bob], django_capture_on_commit_callbacks)
    snap = games_selectors.table_snapshot(table.pk, alice, 0)
    assert "unrated" not in snap["table"]["finish"]
    client.force_login(alice)
    game = Game.objects.get(table=table)
    page = client.get(game.get_absolute_url()).content.decode()
    assert "not rated" not in page
    # the game's change first, then today's rating said as today's (it read "rated 1483? ·
    # this game +111", as if 1483 had been the rating in that game); a true minus sign
    assert re.search(r"rating this game <span[^>]*>[+−]\d+</span> · <span[^>]*>now 1\d{3}\?",
                     page), page[page.find("Final"):][:600]
    archive = client.get("/games/").content.decode()
    assert "· rated</td>" in archive
    for who in (alice, User.objects.get(username="bob")):  # the winner's + and the loser's −
        client.force_login(who)
        archive = client.get("/games/").content.decode()
        assert re.search(r'rating-delta-(up">\+|down">−)\d+<', archive), archive[-3000:]


@pytest.mark.django_db
def test_the_tournament_requirement_counts_only_rated_games(make_user, client):
    newbie, other = make_user("newbie"), make_user("other")
    make_game([newbie, other])
    # resigned before the other player moved: not rated, so not counted
    make_game([newbie, other], ending="resignation", loser_seat=0,
              actions=[{"version": 2, "seat": 1, "action": "pass", "source": "player",
                        "at": "2026-01-01T00:00:00Z"}])
    make_game([newbie, other], rated=False)
    assert tournaments.rated_games(newbie) == 1
    assert not tournaments.can_create(newbie)
    client.force_login(newbie)
    for url in ("/tournaments/", "/tournaments/new/"):
        html = client.get(url).content.decode()
        assert "1 of 3 rated games" in html, url
        assert "before both have moved" in html or "not rated" in html
    make_game([newbie, other])
    make_game([newbie, other])
    assert tournaments.rated_games(newbie) == 3 and tournaments.can_create(newbie)


@pytest.mark.django_db
def test_casual_and_computer_games_show_no_rating(make_user, client):
    from tests.support.records import finished_game

    ann, ben = make_user("ann"), make_user("ben")
    computer = finished_game([ann, None], bot_level=2)
    casual = finished_game([ann, ben], seed=2)
    client.force_login(ann)
    for game in (computer, casual):
        page = client.get(game.get_absolute_url()).content.decode()
        assert "rating-tag" not in page and not re.search(r"rated 1\d{3}", page), game
        assert "casual" in page
