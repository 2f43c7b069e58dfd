"""A ``state`` frame's text is encoded once per audience of a published message and spliced
with each connection's parts (``core.wire``, ``games.frames.connection_text``): the text a
socket sends is byte for byte the encoding of the whole frame (``wire.dumps``), which is
the same JSON as the old ``json.dumps`` (the wire format is unchanged), and two sockets of
one audience cost one encoding."""
from __future__ import annotations

import datetime as dt
import json

import pytest
from channels.db import database_sync_to_async
from django.contrib.auth.models import AnonymousUser
from django.utils import timezone

from core import wire
from games import frames
from games.models import Seat
from tests.support.sockets import connect, recv, send
from tests.support.tables import play_one, start_table


def _old_text(frame) -> str:
    """What the socket sent before the splicing: the whole frame, encoded per socket."""
    return wire.dumps(frame)


@pytest.mark.parametrize("value", [
    {"type": "state", "name": "Zoë ☃ \u2028 \x00 \"q\" \\", "n": -3, "f": 0.1, "big": 2**62,
     "none": None, "t": True, "list": [[], {}, [1, {"a": []}]]},
    {1: "int keys become strings", "2": 2},
    [], "", 0,
])
def test_wire_text_is_the_json_the_old_encoder_gave(value):
    """Another encoder than the old ``json.dumps``, the same JSON for any parser: compact,
    and equal once parsed (non-ASCII characters are sent as UTF-8, not ``\\u`` escapes)."""
    old = json.dumps(value, separators=(",", ":"))
    new = wire.dumps(value)
    assert json.loads(new) == json.loads(old)
    assert ": " not in new.replace('"', "") and ", " not in new.replace('"', "")


@pytest.mark.parametrize("frame,hole", [
    ({"type": "state", "clock": {"a": 1}, "view": "é ☃ \u2028", "events": []}, "clock"),
    ({"clock": None, "b": [1, 2]}, "clock"),
    ({"a": "x", "clock": {"deadline": "z"}}, "clock"),
    ({"clock": 3}, "clock"),
])
def test_spliced_text_is_the_whole_objects_text(frame, hole):
    spliced = wire.Spliced.around(frame, hole)
    for value in (None, 0, {"remaining_ms": 5, "n": "ü"}, [1, "\x00"]):
        for appended in ({}, {"you": {"seat": None, "username": "Zoë"}}):
            whole = {**frame, hole: value, **appended}
            assert spliced.text(value, **appended) == _old_text(whole)
            assert json.loads(spliced.text(value, **appended)) == whole


def test_the_memo_keeps_the_last_values_and_computes_each_once():
    memo, made = wire.Memo(size=2), []

    def make(v):
        return lambda: made.append(v) or v

    assert memo.get("a", make(1)) == 1 and memo.get("a", make(2)) == 1
    memo.get("b", make(3))
    memo.get("c", make(4))  # "a" is the oldest: dropped
    assert memo.get("a", make(5)) == 5 and made == [1, 3, 4, 5]


def test_connection_text_is_for_connection_encoded(rooms, two_players, make_user, rng,
                                                   monkeypatch):
    alice, bob = two_players
    carol = make_user("carol")
    table = start_table(rooms["classic"], [alice, bob])
    now = timezone.now() + dt.timedelta(seconds=3)
    monkeypatch.setattr(timezone, "now", lambda: now)  # one remaining_ms for both paths
    viewers = [(alice, 0), (bob, 1), (carol, None), (AnonymousUser(), None)]
    for _ in range(6):
        table.refresh_from_db()
        seats = list(Seat.objects.filter(table=table).select_related("user").order_by("index"))
        bodies = frames.table_state_frames(table, seats)()
        for user, seat in viewers:
            frame = frames.frame_for(bodies, seat)
            spliced = frames.state_spliced(frame)
            text, clock = frames.connection_text(spliced, frame, user=user, seat=seat)
            whole = frames.for_connection(frame, user=user, seat=seat)
            assert text == _old_text(whole), (seat, user)
            assert json.loads(text) == json.loads(json.dumps(whole)), (seat, user)
            assert clock == whole["clock"] and clock["remaining_ms"] > 0
        play_one(table.pk, {0: alice, 1: bob}, rng)


@pytest.mark.django_db(transaction=True)
async def test_sockets_of_one_audience_share_one_encoding(rooms, two_players, monkeypatch):
    """Two spectators and the two players of a table: a move's frames are encoded once per
    audience (seat 0, seat 1, the spectators), and each spectator still gets its own ``you``."""
    alice, bob = two_players
    table = await database_sync_to_async(start_table)(rooms["classic"], [alice, bob])
    encoded = []
    real = frames.state_spliced

    def counting(frame):
        encoded.append(frame["view"].get("hand") is not None)
        return real(frame)

    monkeypatch.setattr(frames, "state_spliced", counting)
    frames.STATE_TEXTS.clear()
    comms = [await connect(table.pk, alice), await connect(table.pk, bob),
             await connect(table.pk), await connect(table.pk)]
    try:
        snaps = [await recv(c, "snapshot") for c in comms]
        to_act = snaps[0]["view"]["to_act"]
        legal = snaps[to_act]["view"]["legal_actions"]
        await send(comms[to_act], {"type": "action", "action": legal[0],
                                    "version": table.version, "id": "m-1"})
        states = [await recv(c, "state") for c in comms]
        assert [s["you"]["seat"] for s in states] == [0, 1, None, None]
        # the same frame but for the clock's remaining_ms, which each connection's send
        # computes (two sends may fall on either side of a millisecond)
        remaining = [s["clock"].pop("remaining_ms") for s in states[2:]]
        assert abs(remaining[0] - remaining[1]) <= 1000
        assert states[2] == states[3] and states[2]["view"].get("hand") is None
        assert sorted(encoded) == [False, True, True]  # spectators once, each seat once
    finally:
        for c in comms:
            await c.disconnect()

