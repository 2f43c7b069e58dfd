"""Real processes: two Daphnes sharing the Redis channel layer, and a Daphne killed with
SIGKILL in the middle of a game and started again. Clients are the documented protocol
client of ``test_protocol_client``; every frame is checked against the replayed truth."""
from __future__ import annotations

import asyncio
import os
import random

import pytest

from games.models import Game, Table
from tests.support.protocol import (
    PASSWORD,
    Http,
    TableClient,
    make_player,
    play_game,
    resign_unless_over,
)
from tests.support.protocol import table_id_from as _table_id
from tests.support.protocol_checks import Truth, check_all, check_versions
from tests.support.servers import DaphneServer, wait_for_other_db_sessions_to_end
from tests.support.servers import shared_db_env as server_env

pytestmark = pytest.mark.django_db(transaction=True)
MOVES = 60  # moves to play before resigning (a whole hand or more), to keep the tests short


@pytest.fixture
def servers(rooms, tmp_path):
    """Start Daphne processes on this test's database; all stopped at the end."""
    started: list[DaphneServer] = []

    def start(port: int | None = None, name: str = "daphne") -> DaphneServer:
        srv = DaphneServer(server_env(), tmp_path / f"{name}.log", port=port).start()
        started.append(srv)
        return srv

    try:
        yield start
    finally:
        for srv in started:
            srv.stop()
        for srv in started:
            print(f"--- {srv.log_path.name} ---\n" + srv.log_tail(2000))
        wait_for_other_db_sessions_to_end()


def _people(make_user, base):
    make_player(make_user, "alice")
    make_player(make_user, "bob")
    alice, bob = Http(base), Http(base)
    alice.login("alice", PASSWORD)
    bob.login("bob", PASSWORD)
    return alice, bob


def _new_table(alice: Http, target: int = 50) -> int:
    status, headers, _ = alice.post(
        "/play/classic/new/", {"seats": "2", "seconds_per_turn": "60", "target": str(target)}
    )
    assert status == 302, status
    return _table_id(headers["Location"])


@pytest.mark.skipif(
    not os.environ.get("REDIS_URL"),
    reason="needs REDIS_URL: the embedded in-memory channel layer cannot cross processes",
)
def test_two_daphne_processes_share_one_game(servers, make_user):
    one, two = servers(name="daphne-1"), servers(name="daphne-2")
    alice, bob = _people(make_user, one.base)
    bob.base = two.base  # the session lives in the shared database: it works on both
    table_id = _new_table(alice)

    async def run():
        a = await TableClient.open("alice@1", one.ws_base, table_id, alice, one.base)
        b = await TableClient.open("bob@2", two.ws_base, table_id, bob, two.base)
        try:
            assert b.latest["you"]["role"] == "spectator"
            ack = await b.request({"type": "sit", "id": "sit-1"})
            # Bob's sitting, handled by process 2, reaches Alice on process 1 ...
            started = await a.wait_version(ack["version"])
            assert started["table"]["status"] == "playing"
            assert [s["username"] for s in started["seats"]] == ["alice", "bob"]
            await b.wait_for(lambda f: f["type"] == "snapshot" and f["you"]["seat"] == 1)
            version = ack["version"]
            # ... and every move either of them makes reaches the other one (each move
            # waits for both sides' state frames), until the game ends or Bob resigns.
            version = await play_game({0: a, 1: b}, [], version, random.Random(11),
                                      checks=False, stop_after=MOVES)
            if a.latest["table"]["status"] == "playing":
                version = await resign_unless_over(b)
                for c in (a, b):
                    await c.wait_version(version)
            assert a.latest["table"]["status"] == b.latest["table"]["status"] == "finished"
            assert a.latest["table"]["finish"] == b.latest["table"]["finish"]
            check_versions(a, version)
            return {a: 0, b: 1}
        finally:
            await a.close()
            await b.close()

    clients = asyncio.run(run())
    assert Game.objects.filter(table_id=table_id).exists()
    check_all(clients, Truth(table_id))


def test_a_killed_server_resumes_every_seat(servers, make_user):
    """SIGKILL mid-game, start again on the same port: both players reconnect, get exactly
    their seat's state back, and play on to the end of the game (a normal end, or a
    resignation after ``MOVES`` more moves)."""
    first = servers(name="daphne-before")
    alice, bob = _people(make_user, first.base)
    # a hand scores at most about 130 and 15 moves hold at most three: to 500, the game is
    # still on when the server dies (to 50, a first-hand gin could end it: CI dealt one)
    table_id = _new_table(alice, target=500)
    status, _, _ = bob.post(f"/tables/{table_id}/sit/", {})
    assert status == 302

    async def before():
        a = await TableClient.open("alice", first.ws_base, table_id, alice, first.base)
        b = await TableClient.open("bob", first.ws_base, table_id, bob, first.base)
        version = max(a.latest["version"], b.latest["version"])
        version = await play_game({0: a, 1: b}, [], version, random.Random(2), stop_after=15)
        for c in (a, b):
            await c.wait_version(version)
        first.kill()
        for c in (a, b):  # the sockets drop with the process
            await asyncio.wait_for(c._reader, 10)
        return a, b, version

    a_old, b_old, version = asyncio.run(before())
    assert a_old.latest["table"]["status"] == "playing"
    assert Table.objects.get(pk=table_id).version == version

    second = servers(port=first.port, name="daphne-after")

    async def after():
        a = await TableClient.open("alice", second.ws_base, table_id, alice, second.base)
        b = await TableClient.open("bob", second.ws_base, table_id, bob, second.base)
        try:
            for new, old in ((a, a_old), (b, b_old)):
                snap = new.latest
                assert snap["version"] == version
                assert snap["view"] == old.latest["view"], "the seat's state did not come back"
                assert snap["you"] == old.latest["you"]
                assert snap["table"] == old.latest["table"]
            last = await play_game({0: a, 1: b}, [], version, random.Random(3),
                                   stop_after=MOVES)
            if a.latest["table"]["status"] == "playing":
                last = await resign_unless_over(a)
                for c in (a, b):
                    await c.wait_version(last)
            assert a.latest["table"]["status"] == b.latest["table"]["status"] == "finished"
            check_versions(a, last)
            check_versions(b, last)
            return a, b
        finally:
            await a.close()
            await b.close()

    a_new, b_new = asyncio.run(after())
    assert Game.objects.filter(table_id=table_id).exists()
    check_all({a_old: 0, b_old: 1, a_new: 0, b_new: 1}, Truth(table_id))
