"""A rated game finished through live play is rated by the subscriber of games' finish
signal, and the change reaches the table socket (in a new version of the table's frames),
the game page and the game list."""
from __future__ import annotations

import json

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from games import selectors as games_selectors
from games import services as games_services
from games.models import Game, Table
from ginsite.asgi import application
from leaderboards.models import Rating, RatingChange
from tests.support.tables import play_one, resigned_rated_table

ORIGIN = (b"origin", b"http://testserver")


@pytest.mark.django_db
def test_resigned_rated_game_is_rated_and_shown(rooms, make_user, client,
                                                django_capture_on_commit_callbacks):
    alice, bob = make_user("alice"), make_user("bob")
    table = resigned_rated_table(rooms, [alice, bob], django_capture_on_commit_callbacks)
    game = Game.objects.get(table=table)
    changes = {c.user_id: c.delta for c in RatingChange.objects.filter(game=game)}
    assert changes[alice.pk] > 0 > changes[bob.pk]
    assert Rating.objects.get(user=alice, mode="classic").games == 1
    snap = games_selectors.table_snapshot(table.pk, alice, 0)
    assert "rating_changes" not in snap["table"]["finish"]
    ratings = {u: Rating.objects.get(user=u, mode="classic").rating for u in (alice, bob)}
    assert snap["ratings"] == [
        {"seat": seat, "rating": ratings[u], "provisional": True, "label": f"{ratings[u]}?",
         "change": changes[u.pk]} for seat, u in enumerate((alice, bob))]
    client.force_login(alice)
    page = client.get(game.get_absolute_url()).content.decode()
    assert f"+{changes[alice.pk]}</span>" in page
    assert f"\u2212{-changes[bob.pk]}</span>" in page  # a true minus sign
    mine = client.get("/games/").content.decode()
    assert f"+{changes[alice.pk]}</span>" in mine


@pytest.mark.django_db
def test_casual_and_computer_games_are_not_rated(rooms, make_user,
                                                 django_capture_on_commit_callbacks):
    alice, bob = make_user("alice"), make_user("bob")
    with django_capture_on_commit_callbacks(execute=True):
        casual = games_services.table_create(user=alice, room=rooms["classic"])
        games_services.table_sit(table_id=casual.pk, user=bob)
        for _ in range(2):
            play_one(casual.pk, {0: alice, 1: bob})
        games_services.table_resign(table_id=casual.pk, user=bob)
        bot = games_services.play_computer(user=alice, mode="classic", level=1,
                                           seconds_per_turn=30)
        games_services.table_resign(table_id=bot.pk, user=alice)
    assert Game.objects.count() == 2
    assert not RatingChange.objects.exists() and not Rating.objects.exists()


def _cookie(user):
    c = Client()
    c.force_login(user)
    return c.cookies["sessionid"].value


async def _connect(table_id, user):
    cookie = await database_sync_to_async(_cookie)(user)
    comm = WebsocketCommunicator(application, f"/ws/table/{table_id}/",
                                 headers=[ORIGIN, (b"cookie", f"sessionid={cookie}".encode())])
    connected, _ = await comm.connect()
    assert connected
    return comm


async def _others(comm):
    """Frames left on the socket that are not snapshot, state or presence frames."""
    while not await comm.receive_nothing(timeout=0.3):
        frame = json.loads(await comm.receive_from())
        if frame["type"] not in ("snapshot", "state", "presence", "ack"):
            yield frame


async def _next(comm, kind):
    while True:
        frame = json.loads(await comm.receive_from(timeout=5))
        if frame["type"] == kind:
            return frame


@pytest.mark.django_db(transaction=True)
async def test_the_change_is_pushed_to_the_table_socket(rooms, make_user):
    alice = await database_sync_to_async(make_user)("alice")
    bob = await database_sync_to_async(make_user)("bob")
    table = await database_sync_to_async(games_services.table_create)(
        user=alice, room=rooms["classic"], rated=True)
    comm = await _connect(table.pk, alice)
    try:
        snap = await _next(comm, "snapshot")
        assert snap["ratings"] == [{"seat": 0, "rating": 1500, "provisional": True,
                                    "label": "1500?", "change": None}]
        await database_sync_to_async(games_services.table_sit)(table_id=table.pk, user=bob)
        seated = await _next(comm, "state")  # someone sat down: a new version, both ratings
        assert [(r["seat"], r["label"], r["change"]) for r in seated["ratings"]] \
            == [(0, "1500?", None), (1, "1500?", None)]
        for _ in range(2):
            await database_sync_to_async(play_one)(table.pk, {0: alice, 1: bob})
        await database_sync_to_async(games_services.table_resign)(table_id=table.pk, user=bob)
        # the finish's frame, then (once the task has rated the game) the next version's
        while True:
            frame = await _next(comm, "state")
            if frame["table"]["status"] == "finished" and frame["ratings"][0]["change"]:
                break
        finished = await database_sync_to_async(Table.objects.get)(pk=table.pk)
        assert frame["version"] == finished.version
        by_seat = {r["seat"]: r for r in frame["ratings"]}
        assert by_seat[0]["change"] > 0 > by_seat[1]["change"]
        assert by_seat[0]["rating"] == 1500 + by_seat[0]["change"]
        assert by_seat[0]["label"] == f"{by_seat[0]['rating']}?"
        assert not [f async for f in _others(comm)]  # no other kind of frame for ratings
    finally:
        await comm.disconnect()
