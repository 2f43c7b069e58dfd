"""Bad handshakes and frames get the documented answers, never a 500 or a 1011."""
from __future__ import annotations

import pytest
from channels.testing import WebsocketCommunicator

from games.models import TableAction
from ginsite.asgi import application
from ginsite.origin import origin_allowed
from tests.support.sockets import ORIGIN, connect, recv, send
from tests.support.tables import start_table, state_of

pytestmark = pytest.mark.django_db(transaction=True)


def _scope(origin, host=None, scheme="ws"):
    headers = [(b"origin", origin.encode())]
    if host is not None:
        headers.append((b"host", host.encode()))
    return {"type": "websocket", "scheme": scheme, "headers": headers}


def test_the_origin_must_be_the_sites_own_host_and_port(settings):
    settings.CSRF_TRUSTED_ORIGINS = ["https://play.example.com"]
    assert origin_allowed(_scope("http://127.0.0.1:8000", "127.0.0.1:8000"))
    assert not origin_allowed(_scope("http://127.0.0.1:9999", "127.0.0.1:8000"))
    assert not origin_allowed(_scope("http://127.0.0.1", "127.0.0.1:8000"))
    assert not origin_allowed(_scope("http://evil.test:8000", "127.0.0.1:8000"))
    assert origin_allowed(_scope("https://gin.example.com", "gin.example.com", "wss"))
    assert origin_allowed(_scope("https://gin.example.com:443", "gin.example.com", "wss"))
    assert origin_allowed(_scope("https://play.example.com", "backend:8001"))  # trusted
    assert not origin_allowed(_scope("null", "127.0.0.1:8000"))
    assert not origin_allowed(_scope("", "127.0.0.1:8000"))
    assert not origin_allowed(_scope("http://[::1", "127.0.0.1:8000"))


async def test_a_foreign_port_is_refused_at_the_handshake(rooms, two_players):
    comm = WebsocketCommunicator(application, "/ws/table/1/", headers=[
        (b"origin", b"http://testserver:9999"), (b"host", b"testserver:8000"),
    ])
    connected, _ = await comm.connect()
    assert not connected
    await comm.disconnect()


@pytest.mark.parametrize("path", ["/ws/table/abc/", "/ws/table/" + "9" * 25 + "/"])
async def test_a_malformed_socket_path_is_closed_with_4404(path):
    """Not a table id, or one past any database integer (it used to reach the database)."""
    comm = WebsocketCommunicator(application, path, headers=[ORIGIN])
    connected, _ = await comm.connect()
    assert connected
    assert (await comm.receive_output(timeout=3)) == {"type": "websocket.close", "code": 4404}
    await comm.disconnect()


async def test_deeply_nested_json_is_bad_json_and_changes_nothing(rooms, two_players):
    from channels.db import database_sync_to_async

    alice, bob = two_players
    table = await database_sync_to_async(start_table)(rooms["classic"], [alice, bob])
    comm = await connect(table.pk, alice)
    try:
        await recv(comm, "snapshot")
        await comm.send_to(text_data="[" * 2000 + "]" * 2000)
        frame = await recv(comm, "error")
        assert frame["code"] == "bad_json"
        # an object nested deeper than frames go is told so (not "must be JSON objects")
        await comm.send_to(text_data='{"type": "chat", "x": ' + "[" * 9 + "]" * 9 + "}")
        deep = await recv(comm, "error")
        assert (deep["code"], deep["message"]) == ("bad_json", "Frames nest at most 8 levels.")
        await send(comm, {"type": "ping", "t": 1})
        pong = await recv(comm, "pong")
        assert pong["version"] == table.version  # still open, and the pong says the version
        count = await database_sync_to_async(TableAction.objects.filter(table=table).count)()
        assert count == 0
    finally:
        await comm.disconnect()


async def test_a_ping_with_a_number_no_frame_can_carry_is_answered_without_it(
        rooms, two_players):
    """A ``t`` past 64 bits went unanswered alone and closed the socket with 1011 after a
    ping (the frame encoder refuses it): now the pong comes, without the ``t``."""
    from channels.db import database_sync_to_async

    alice, bob = two_players
    table = await database_sync_to_async(start_table)(rooms["classic"], [alice, bob])
    comm = await connect(table.pk, alice)
    try:
        await recv(comm, "snapshot")
        for t, echoed in ((1, 1), (2 ** 64, None), (-(2 ** 70), None), (True, None),
                          (1.5, 1.5)):
            await send(comm, {"type": "ping", "t": t})
            pong = await recv(comm, "pong")
            assert pong["t"] == echoed and type(pong["t"]) is type(echoed), t
            assert pong["version"] == table.version
        # NaN is no JSON (only Python writes it): refused as such, and the socket goes on
        await comm.send_to(text_data='{"type": "ping", "t": NaN}')
        refused = await recv(comm)
        assert refused["type"] == "error" and refused["code"] == "bad_json", refused
        await send(comm, {"type": "ping", "t": 7})
        assert (await recv(comm, "pong"))["t"] == 7
    finally:
        await comm.disconnect()


async def test_a_database_failure_answers_unavailable_and_keeps_the_socket(
    rooms, two_players, monkeypatch
):
    from channels.db import database_sync_to_async
    from django.db import OperationalError

    from games import services

    alice, bob = two_players
    table = await database_sync_to_async(start_table)(rooms["classic"], [alice, bob])
    to_act = (await database_sync_to_async(state_of)(table.pk)).to_act
    comm = await connect(table.pk, alice if to_act == 0 else bob)
    try:
        snap = await recv(comm, "snapshot")

        def down(**kwargs):
            raise OperationalError("the database is down")

        monkeypatch.setattr(services, "table_act", down)
        action = snap["view"]["legal_actions"][0]
        await send(comm, {"type": "action", "id": "m1", "action": action,
                          "version": snap["version"]})
        frame = await recv(comm, "error")
        assert frame["code"] == "unavailable" and frame["id"] == "m1"
        monkeypatch.undo()
        # the same move, the same id, once the database is back: applied
        await send(comm, {"type": "action", "id": "m1", "action": action,
                          "version": snap["version"]})
        ack = await recv(comm, "ack")
        assert ack["id"] == "m1" and ack["version"] == snap["version"] + 1
    finally:
        await comm.disconnect()


async def test_a_move_the_database_does_not_answer_is_refused_within_the_bound(
    rooms, two_players, monkeypatch
):
    """The database hangs (a PostgreSQL outage: the connection pool waits, the thread pool
    fills): the move is answered ``unavailable`` within 3 s all the same. The work goes on;
    when it ends, its frames are published, and the same move sent again gets ``duplicate``
    (it was applied, once)."""
    import threading
    import time

    from channels.db import database_sync_to_async

    from games import services, socket_work

    alice, bob = two_players
    table = await database_sync_to_async(start_table)(rooms["classic"], [alice, bob])
    to_act = (await database_sync_to_async(state_of)(table.pk)).to_act
    comm = await connect(table.pk, alice if to_act == 0 else bob)
    release = threading.Event()
    real_act = services.table_act

    def hanging(**kwargs):
        release.wait(10)  # the database answers only when the test says so
        return real_act(**kwargs)

    try:
        snap = await recv(comm, "snapshot")
        monkeypatch.setattr(services, "table_act", hanging)
        action = snap["view"]["legal_actions"][0]
        sent = time.monotonic()
        await send(comm, {"type": "action", "id": "m1", "action": action,
                          "version": snap["version"]})
        frame = await recv(comm, "error", timeout=5)
        took = time.monotonic() - sent
        assert frame["code"] == "unavailable" and frame["id"] == "m1"
        assert socket_work.ANSWER_WITHIN - 0.1 < took < 3.0, took
        release.set()  # the database answers: the move is applied after all
        state = await recv(comm, "state")
        assert state["version"] == snap["version"] + 1
        monkeypatch.undo()
        await send(comm, {"type": "action", "id": "m1", "action": action,
                          "version": snap["version"]})
        assert (await recv(comm, "error"))["code"] == "duplicate"
        count = await database_sync_to_async(
            TableAction.objects.filter(table_id=table.pk, client_id="m1").count)()
        assert count == 1
    finally:
        release.set()
        await comm.disconnect()


async def test_a_deadline_due_after_an_outage_gives_the_time_back_on_the_socket(
    rooms, two_players
):
    """PostgreSQL was down for 15 s (no process could stamp the clocks heartbeat) and the
    player's socket timer fires on the deadline it was shown before: the time is given back
    before the deadline is checked, no timeout is played, and the player gets a fresh
    ``snapshot`` with the new clock (and the socket watches that one)."""
    from datetime import timedelta

    from channels.db import database_sync_to_async
    from django.utils import timezone

    from games import services
    from games.models import Heartbeat, Table

    alice, bob = two_players
    table = await database_sync_to_async(start_table)(rooms["classic"], [alice, bob])
    to_act = (await database_sync_to_async(state_of)(table.pk)).to_act

    def outage():
        services.clocks_watched()
        Heartbeat.objects.filter(name="clocks").update(
            at=timezone.now() - timedelta(seconds=15))
        Table.objects.filter(pk=table.pk).update(
            turn_deadline=timezone.now() + timedelta(seconds=0.3))

    await database_sync_to_async(outage)()
    comm = await connect(table.pk, alice if to_act == 0 else bob)
    try:
        first = await recv(comm, "snapshot")
        assert first["clock"]["remaining_ms"] <= 300
        again = await recv(comm, "snapshot", timeout=5)  # the timer fired: no timeout
        assert again["version"] == first["version"]
        assert again["clock"]["remaining_ms"] > 9000
        count = await database_sync_to_async(
            TableAction.objects.filter(table_id=table.pk, source="timeout").count)()
        assert count == 0
    finally:
        await comm.disconnect()
