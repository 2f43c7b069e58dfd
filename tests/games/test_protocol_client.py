"""A client written from docs/protocol.md (Tables) alone plays whole games against a real
Daphne process over real sockets, and every frame it gets is checked against the truth.

The client part (``Http``, ``TableClient``, ``choose``) uses only what the page documents:
the login form, the HTTP endpoints, the socket URL, the ``Origin`` header, the session
cookie, the frames and their fields. The checking part reads the database afterwards: the
table's seed and stored actions replay, through the engine, the true state at every
version, against which each frame is scanned for leaks (another seat's hidden cards, the
stock, the seed before the end) and each view compared with what a fresh snapshot must be.
"""
from __future__ import annotations

import asyncio
import json
import random

import pytest

from games import engine as E
from games import frames, states
from games.models import Game, Table
from tests.support.protocol import (
    PASSWORD,
    Http,
    TableClient,
    choose,
    make_player,
    play_game,
    resign_unless_over,
)
from tests.support.protocol import table_id_from as _table_id
from tests.support.protocol_checks import Truth, check_all, check_versions, leaks
from tests.support.servers import DaphneServer, wait_for_other_db_sessions_to_end
from tests.support.servers import shared_db_env as server_env

pytestmark = pytest.mark.django_db(transaction=True)

# =============================================================================== the games


# The deal of the two people's game: 49 moves over two hands with today's engine and
# ``choose`` (random deals averaged about 150). As long as the server's own: the leak scan
# looks for the seed's digits in every frame before the end.
GAME_SEED = 3846267464656031817


@pytest.fixture
def server(rooms, tmp_path):
    """A Daphne process on this test's database."""
    srv = DaphneServer(server_env(), tmp_path / "daphne.log").start()
    try:
        yield srv
    finally:
        srv.stop()
        print("--- daphne log ---\n" + srv.log_tail())  # shown when the test fails
        wait_for_other_db_sessions_to_end()


def test_two_people_play_a_whole_game_over_real_sockets(server, make_user):
    make_player(make_user, "alice")
    make_player(make_user, "bob")
    alice, bob = Http(server.base), Http(server.base)
    alice.login("alice", PASSWORD)
    bob.login("bob", PASSWORD)

    # A form error answers 400 and creates nothing.
    status, _, _ = alice.post("/play/classic/new/", {"seats": "2", "seconds_per_turn": "7"})
    assert status == 400
    status, headers, _ = alice.post(
        "/play/classic/new/", {"seats": "2", "seconds_per_turn": "60", "target": "50"}
    )
    assert status == 302, status
    table_id = _table_id(headers["Location"])
    status, _, page = alice.get(f"/tables/{table_id}/")
    assert status == 200 and 'id="table-data"' in page
    rooms = json.loads(server_get_json(alice, "/play/classic/tables.json"))
    assert [t["id"] for t in rooms["open"]] == [table_id]
    # The deal Bob's seat starts: both players' moves follow from their views and seeded
    # choices, so the whole game is the same on every run (random deals made 12 to 260 moves).
    assert Table.objects.filter(pk=table_id, status="open").update(seed=GAME_SEED) == 1

    results = asyncio.run(_two_people(server, alice, bob, table_id))

    table = Table.objects.get(pk=table_id)
    game = Game.objects.get(table=table)
    assert results["finish"]["game_id"] == game.pk
    assert results["finish"]["ending"] == game.ending == "normal"
    assert results["finish"]["scores"] == [p.score for p in game.players.order_by("seat")]

    # The stored game, as both players see it.
    status, _, page = alice.get(results["finish"]["url"])
    assert status == 200 and "alice" in page.lower() and "bob" in page.lower()
    status, _, mine = bob.get("/games/")
    assert status == 200 and results["finish"]["url"] in mine
    record = json.loads(server_get_json(alice, f"/games/{game.pk}/record.json"))
    assert record["seed"] == table.seed
    assert record["totals"] == results["finish"]["scores"]
    assert [p["username"] for p in record["players"]] == ["alice", "bob"]
    replayed = E.replay(E.GameRecord.from_dict(record["engine"]))
    assert replayed.to_dict(compact=True) == table.state  # tables store states compact

    assert record["seed"] == GAME_SEED
    truth = Truth(table_id)
    counts = check_all(results["clients"], truth)
    # (the floor proves the scan saw real play, whatever a change to the engine or to
    # ``choose`` makes of the seeded game)
    assert counts["views"] > 15 and counts["applied"] > 5, counts


def server_get_json(http: Http, path: str) -> str:
    status, _, body = http.get(path)
    assert status == 200, (path, status)
    return body


async def _two_people(server, alice_http: Http, bob_http: Http, table_id: int):
    origin = server.base
    a = await TableClient.open("alice", server.ws_base, table_id, alice_http, origin)
    watcher = await TableClient.open("watcher", server.ws_base, table_id, None, origin)
    b = None
    try:
        snap = a.latest
        assert snap["table"]["status"] == "open" and snap["view"] is None
        assert snap["you"]["role"] == "player" and snap["you"]["seat"] == 0
        assert watcher.latest["you"]["role"] == "spectator"
        version = snap["version"]

        # Bob takes the other seat over HTTP: the game starts and both sockets hear it.
        status, headers, _ = await asyncio.to_thread(
            bob_http.post, f"/tables/{table_id}/sit/", {"seat": "1"}
        )
        assert status == 302
        version += 1
        started = await a.wait_version(version)
        assert started["table"]["status"] == "playing" and started["view"]["hand"]
        b = await TableClient.open("bob", server.ws_base, table_id, bob_http, origin)
        assert b.latest["you"] == {**b.latest["you"], "role": "player", "seat": 1}
        assert b.latest["version"] == version

        # Refusals over the wire: error frames, nothing changes.
        actor, idle = (a, b) if a.latest["view"]["legal_actions"] else (b, a)
        legal = actor.latest["view"]["legal_actions"]
        err = await idle.request({"type": "action", "action": legal[0], "version": version,
                                  "id": "x-1"}, reply="error")
        assert err["code"] == "not_your_turn" and err["version"] == version
        mark = len(actor.frames)
        err = await actor.request({"type": "action", "action": legal[0],
                                   "version": version - 1, "id": "x-2"}, reply="error")
        assert err["code"] == "stale_version"
        await actor.wait_for(lambda f: f["type"] == "snapshot", since=mark)
        err = await actor.request({"type": "action", "action": "discard:ZZ",
                                   "version": version, "id": "x-3"}, reply="error")
        assert err["code"] == "invalid_action"
        mark = len(actor.frames)
        await actor.send({"type": "action", "action": legal[0]})
        err = await actor.wait_for(lambda f: f["type"] == "error", since=mark)
        assert err["code"] == "bad_message"
        await watcher.send({"type": "action", "action": legal[0], "version": version,
                            "id": "w-1"})
        err = await watcher.wait_for(lambda f: f["type"] == "error" and f["id"] == "w-1")
        assert err["code"] == "not_seated"

        # A move, then the same move again (a retry with the same id): applied once.
        move = {"type": "action", "action": choose(actor.latest["view"], random.Random(1)),
                "version": version, "id": "first-move"}
        ack = await actor.request(move)
        assert ack["version"] == version + 1
        err = await actor.request(move, reply="error")
        assert err["code"] == "duplicate"
        version = ack["version"]

        # Chat reaches everyone as raw text; ping is answered.
        await a.send({"type": "chat", "text": "<b>good luck</b>"})
        for c in (a, b, watcher):
            line = await c.wait_for(lambda f: f["type"] == "chat")
            assert line["message"]["text"] == "<b>good luck</b>"
            assert line["message"]["username"] == "alice"
        await b.send({"type": "ping", "t": 12345})
        assert (await b.wait_for(lambda f: f["type"] == "pong"))["t"] == 12345

        version = await play_game({0: a, 1: b}, [watcher], version, random.Random(5))
        final = a.latest
        assert final["table"]["status"] == "finished"
        assert final["view"]["is_over"] and final["view"]["seed"] is not None
        assert watcher.latest["table"]["finish"] == final["table"]["finish"]
        for c in (a, b, watcher):
            check_versions(c, version)
        return {"finish": final["table"]["finish"], "clients": {a: 0, b: 1, watcher: None}}
    finally:
        for c in (a, watcher, b):
            if c is not None:
                await c.close()


def test_three_player_rummy_against_bots_over_real_sockets(server, make_user):
    """A person and two computer players: bots move through the same path, and the
    person's frames (and a spectator's) hold nothing hidden."""
    make_player(make_user, "carol")
    carol = Http(server.base)
    carol.login("carol", PASSWORD)
    status, headers, _ = carol.post("/play/rummy-3-4/new/", {
        "seats": "3", "seconds_per_turn": "0", "bots": "1", "target": "50",
    })
    assert status == 302, status
    table_id = _table_id(headers["Location"])

    async def run():
        origin = server.base
        c = await TableClient.open("carol", server.ws_base, table_id, carol, origin)
        w = await TableClient.open("watcher", server.ws_base, table_id, None, origin)
        try:
            assert c.latest["table"]["status"] == "playing"
            assert [s["kind"] for s in c.latest["seats"]] == ["user", "bot", "bot"]
            version = max(c.latest["version"], w.latest["version"])
            # Up to 90 moves fit the flood limit at full speed; then Carol resigns.
            await play_game({0: c}, [w], version, random.Random(3), checks=False,
                            stop_after=90)
            if c.latest["table"]["status"] == "playing":
                # the computers move on their own: one may end the game meanwhile
                await resign_unless_over(c)
            # Bots move on their own: wait until both connections saw the end.
            for x in (c, w):
                await x.wait_for(lambda f: f["type"] in ("state", "snapshot")
                                 and f["table"]["status"] == "finished", timeout=60)
            finish = c.latest["table"]["finish"]
            assert finish["ending"] in ("normal", "resignation"), finish
            if finish["ending"] == "resignation":
                assert finish["loser_seat"] == 0
            return {c: 0, w: None}
        finally:
            await c.close()
            await w.close()

    clients = asyncio.run(run())
    truth = Truth(table_id)
    counts = check_all(clients, truth)
    assert counts["views"] > 20, counts


def test_the_leak_scan_catches_leaks():
    """The scan itself: a clean frame passes; a hidden card, the stock or the seed fail."""
    state = states.new_state("classic", 12345, 2, None)

    class FakeTruth:
        table = type("T", (), {"seed": 987654321987})()

        def at(self, version):
            return state

    def frame(seat):
        return {"type": "state", "version": 3, "view": frames.view(state, seat), "events": [],
                "table": {}, "seats": []}

    truth = FakeTruth()
    assert leaks(frame(0), 0, truth, 10**9) == []
    assert leaks(frame(None), None, truth, 10**9) == []
    opponent = frame(0)
    opponent["view"]["known_cards"][1] = [state.hands[1][0].text]
    assert any("hidden cards" in p for p in leaks(opponent, 0, truth, 10**9))
    watcher = frame(None)
    watcher["view"]["hand"] = [c.text for c in state.hands[0]]
    assert leaks(watcher, None, truth, 10**9)
    stock = frame(1)
    stock["view"]["next"] = [c.text for c in state.stock[-3:]]
    found = leaks(stock, 1, truth, 10**9)
    assert any("stock" in p for p in found) and any("hidden" in p for p in found)
    seeded = frame(1)
    seeded["table"] = {"note": f"seed {truth.table.seed}"}
    assert leaks(seeded, 1, truth, 10**9) == ["the seed before the end"]
    assert leaks(seeded, 1, truth, 3) == []  # at the end the seed is public
    private = frame(1)
    private["events"] = [{"kind": "drew", "data": {"seat": 0, "card": "AS"},
                          "visibility": "seat", "seat": 0}]
    assert any("someone else's event" in p for p in leaks(private, 1, truth, 10**9))
