"""The table socket end to end (WebsocketCommunicator through the real ASGI stack)."""
from __future__ import annotations

import json

import pytest
from channels.db import database_sync_to_async

from games import engine as E
from games import services, states, timeouts, watchers
from games.models import Table, TableAction
from tests.support.sockets import connect, recv, send, two_sockets
from tests.support.tables import start_table

pytestmark = pytest.mark.django_db(transaction=True)


def _hidden_cards(table_id, seat):
    """Cards this seat may not see: other hands and the stock."""
    state = states.load(Table.objects.get(pk=table_id).state)
    hidden = {c.text for c in state.stock}
    for i, hand in enumerate(state.hands):
        if i != seat:  # cards taken from the discard pile are public knowledge
            hidden |= {c.text for c in hand} - {c.text for c in state.known[i]}
    return hidden, state.seed


@pytest.fixture
def table(rooms, two_players):
    alice, bob = two_players
    return start_table(rooms["classic"], [alice, bob])


def _cards_in(frame):
    """Every card-looking string anywhere in a frame (except inside legal action texts)."""
    found = set()

    def walk(x):
        if isinstance(x, dict):
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)
        elif isinstance(x, str):
            for part in x.replace(":", ",").replace(">", ",").split(","):
                if len(part) == 2 and part[0] in E.RANKS and part[1] in E.SUITS:
                    found.add(part)

    walk(frame)
    return found


async def test_snapshot_holds_only_your_own_hand(table, two_players):
    alice, bob = two_players
    comm = await connect(table.pk, alice)
    try:
        snap = await recv(comm, "snapshot")
        hidden, seed = await database_sync_to_async(_hidden_cards)(table.pk, 0)
        assert snap["you"]["seat"] == 0 and snap["you"]["role"] == "player"
        assert snap["version"] == table.version
        assert len(snap["view"]["hand"]) == 10
        assert not (_cards_in(snap) & hidden)
        assert str(seed) not in json.dumps(snap)
    finally:
        await comm.disconnect()


async def test_action_reaches_both_seats_with_their_own_views(table, two_players):
    alice, bob = two_players
    users = [alice, bob]
    async with two_sockets(table.pk, alice, bob) as (a, b, *snaps):
        to_act = snaps[0]["view"]["to_act"]
        comms = [a, b]
        actor = comms[to_act]
        legal = snaps[to_act]["view"]["legal_actions"]
        await send(actor, {"type": "action", "action": legal[0], "version": table.version,
                           "id": "m-1"})
        ack = await recv(actor, "ack")
        assert ack == {"type": "ack", "id": "m-1", "version": table.version + 1}
        for seat, comm in enumerate(comms):
            frame = await recv(comm, "state")
            assert frame["version"] == table.version + 1
            assert frame["you"]["seat"] == seat
            assert frame["last"]["action"] == legal[0]
            hidden, _ = await database_sync_to_async(_hidden_cards)(table.pk, seat)
            assert not (_cards_in(frame) & hidden)
        del users


async def test_refused_messages_get_error_frames_and_change_nothing(table, two_players):
    alice, bob = two_players
    async with two_sockets(table.pk, alice, bob) as (a, b, snap_a, _):
        to_act = snap_a["view"]["to_act"]
        actor, other = (a, b) if to_act == 0 else (b, a)
        v = table.version
        cases = [
            (other, {"type": "action", "action": "pass", "version": v, "id": "x1"},
             "not_your_turn"),
            (actor, {"type": "action", "action": "pass", "version": v - 1, "id": "x2"},
             "stale_version"),
            (actor, {"type": "action", "action": "discard:AS", "version": v, "id": "x3"},
             "illegal_action"),
            (actor, {"type": "action", "action": "jump", "version": v, "id": "x4"},
             "invalid_action"),
            (actor, {"type": "action", "action": "pass", "version": "7", "id": "x5"},
             "bad_message"),
            (actor, {"type": "action", "action": "pass", "version": v}, "bad_message"),
            (actor, {"type": "fly"}, "bad_message"),
        ]
        for comm, message, code in cases:
            await send(comm, message)
            err = await recv(comm, "error")
            assert err["code"] == code, message
        await actor.send_to(text_data="{not json")
        assert (await recv(actor, "error"))["code"] == "bad_json"
        await actor.send_to(text_data="[1, 2]")
        assert (await recv(actor, "error"))["code"] == "bad_json"
        await actor.send_to(text_data=json.dumps({"type": "chat", "text": "x" * 5000}))
        assert (await recv(actor, "error"))["code"] == "too_large"
        after = await database_sync_to_async(Table.objects.get)(pk=table.pk)
        assert after.version == v and after.state == table.state
        assert not await database_sync_to_async(
            TableAction.objects.filter(table=table).exists)()
        # Duplicate: the same id twice applies once.
        move = {"type": "action", "action": "pass", "version": v, "id": "dup"}
        await send(actor, move)
        assert (await recv(actor, "ack"))["version"] == v + 1
        await send(actor, {**move, "version": v + 1})
        assert (await recv(actor, "error"))["code"] == "duplicate"
        assert await database_sync_to_async(
            TableAction.objects.filter(table=table).count)() == 1


async def test_spectator_sees_no_hands_and_cannot_move(table, two_players, make_user):
    carol = await database_sync_to_async(make_user)("carol")
    comm = await connect(table.pk, carol)
    anon = await connect(table.pk)
    try:
        for c in (comm, anon):
            snap = await recv(c, "snapshot")
            assert snap["you"]["role"] == "spectator" and snap["view"]["hand"] is None
            state = await database_sync_to_async(
                lambda: states.load(Table.objects.get(pk=table.pk).state))()
            hidden = {x.text for h in state.hands for x in h} | {x.text for x in state.stock}
            hidden -= {x.text for k in state.known for x in k}
            assert not (_cards_in(snap) & hidden)
        await send(comm, {"type": "action", "action": "pass", "version": table.version,
                          "id": "s1"})
        assert (await recv(comm, "error"))["code"] == "not_seated"
    finally:
        await comm.disconnect()
        await anon.disconnect()


async def _watchers_seen(comm, count):
    """Presence frames until one says ``count`` watch (the order of a spectator's own
    frames and the others' is not fixed)."""
    while True:
        frame = await recv(comm, "presence")
        if frame["watchers"] == count:
            return frame


async def test_the_players_see_how_many_watch(table, two_players, make_user):
    """Players could not tell whether anybody watched: the spectators' sockets are counted
    (games.watchers) and every presence frame and snapshot says how many."""
    alice, _bob = two_players
    carol = await database_sync_to_async(make_user)("carol")
    player = await connect(table.pk, alice)
    try:
        assert (await recv(player, "snapshot"))["watchers"] == 0
        watcher = await connect(table.pk, carol)
        anon = await connect(table.pk)
        await _watchers_seen(player, 2)
        assert (await recv(anon, "snapshot"))["watchers"] in (1, 2)
        await watcher.disconnect()
        await _watchers_seen(player, 1)
        again = await connect(table.pk, alice)  # a player's own second tab: not a watcher
        assert (await recv(again, "snapshot"))["watchers"] == 1
        await again.disconnect()
        await anon.disconnect()
        await _watchers_seen(player, 0)
    finally:
        await player.disconnect()


async def test_one_persons_tabs_watch_as_one(table, two_players, make_user):
    """Carol watching in two tabs read "2 watching": a signed-in spectator counts once
    however many tabs; two anonymous visitors, who cannot be told apart, count twice."""
    alice, _bob = two_players
    carol = await database_sync_to_async(make_user)("carol")
    player = await connect(table.pk, alice)
    tabs = []
    try:
        assert (await recv(player, "snapshot"))["watchers"] == 0
        tabs = [await connect(table.pk, carol), await connect(table.pk, carol)]
        # each tab's watch publishes one presence frame (after the player's own, with 0)
        seen = []
        while len(seen) < 2:
            if count := (await recv(player, "presence"))["watchers"]:
                seen.append(count)
        assert seen == [1, 1]
        assert watchers.watching(table.pk) == 1
        await tabs.pop().disconnect()
        assert (await recv(player, "presence"))["watchers"] == 1  # her other tab watches
        # two anonymous visitors, one after the other (a frame reads the count as it is
        # sent: two watches at once may both read 3)
        tabs.append(await connect(table.pk))
        await _watchers_seen(player, 2)
        tabs.append(await connect(table.pk))
        await _watchers_seen(player, 3)
        await tabs.pop(0).disconnect()
        assert (await recv(player, "presence"))["watchers"] == 2
    finally:
        for tab in tabs:
            await tab.disconnect()
        await player.disconnect()


async def test_private_table_refuses_strangers(rooms, two_players, make_user):
    alice, bob = two_players
    table = await database_sync_to_async(services.table_create)(
        user=alice, room=rooms["classic"], private=True)
    stranger = await database_sync_to_async(make_user)("mallory")
    comm = await connect(table.pk, stranger)
    closed = await comm.receive_output(timeout=3)
    assert closed == {"type": "websocket.close", "code": 4404}  # as if there were no table
    await comm.disconnect()
    comm = await connect(table.pk, stranger, query="invite=%C3%BC")  # (was a 500 handshake)
    assert (await comm.receive_output(timeout=3))["code"] == 4404
    await comm.disconnect()
    comm = await connect(table.pk, stranger, query=f"invite={table.invite_token}")
    try:
        assert (await recv(comm, "snapshot"))["you"]["role"] == "spectator"
    finally:
        await comm.disconnect()
    comm = await connect(999999, stranger)
    assert (await comm.receive_output(timeout=3))["code"] == 4404
    await comm.disconnect()


async def test_a_private_game_is_not_watched_by_link_once_it_starts(rooms, two_players,
                                                                    make_user):
    """Someone watching a private table by its invite link while it waits is sent away when
    its game starts (they had every frame of it, and its seed at the end); a socket opened
    with the link after the start is refused: 4410, which the page explains."""
    alice, bob = two_players
    table = await database_sync_to_async(services.table_create)(
        user=alice, room=rooms["classic"], private=True)
    carol = await database_sync_to_async(make_user)("carol")
    watcher = await connect(table.pk, carol, query=f"invite={table.invite_token}")
    try:
        assert (await recv(watcher, "snapshot"))["you"]["role"] == "spectator"
        await database_sync_to_async(services.table_sit)(
            table_id=table.pk, user=bob, invite=table.invite_token)
        while True:
            out = await watcher.receive_output(timeout=3)
            if out["type"] == "websocket.close":
                break
            frame = json.loads(out["text"])
            # nothing of the game itself reached the watcher
            assert frame.get("table", {}).get("status", "open") == "open", frame
        assert out["code"] == 4410
    finally:
        await watcher.disconnect()
    late = await connect(table.pk, carol, query=f"invite={table.invite_token}")
    assert (await late.receive_output(timeout=3))["code"] == 4410
    await late.disconnect()
    player = await connect(table.pk, bob)
    try:
        assert (await recv(player, "snapshot"))["you"]["role"] == "player"
    finally:
        await player.disconnect()


async def test_reconnect_brings_back_the_seat(table, two_players):
    alice, _ = two_players
    comm = await connect(table.pk, alice)
    first = await recv(comm, "snapshot")
    await comm.disconnect()
    comm = await connect(table.pk, alice)
    try:
        again = await recv(comm, "snapshot")
        assert again["view"]["hand"] == first["view"]["hand"]
        assert again["version"] == first["version"]
        await send(comm, {"type": "ping", "t": 5})
        assert (await recv(comm, "pong"))["t"] == 5
    finally:
        await comm.disconnect()


async def test_sitting_from_the_socket_starts_the_game(rooms, two_players):
    alice, bob = two_players
    table = await database_sync_to_async(services.table_create)(user=alice, room=rooms["classic"])
    async with two_sockets(table.pk, alice, bob) as (a, b, _, snap_b):
        assert snap_b["you"]["can_sit"] is True
        await send(b, {"type": "sit"})
        snap = await recv(b, "snapshot")  # switched from spectator to seat 1
        assert snap["you"]["seat"] == 1 and snap["table"]["status"] == "playing"
        assert len(snap["view"]["hand"]) == 10
        frame = await recv(a, "state")
        assert frame["table"]["status"] == "playing" and frame["view"]["seat"] == 0


async def test_chat_is_broadcast_raw_for_textcontent(table, two_players):
    alice, bob = two_players
    async with two_sockets(table.pk, alice, bob) as (a, b, _, _):
        await send(a, {"type": "chat", "text": "<img src=x onerror=alert(1)>"})
        line = (await recv(b, "chat"))["message"]
        assert line["text"] == "<img src=x onerror=alert(1)>" and line["seat"] == 0
        await send(a, {"type": "chat", "text": "y" * 301})
        assert (await recv(a, "error"))["code"] == "chat_too_long"


async def test_flooding_closes_the_socket(table, two_players):
    alice, _ = two_players
    comm = await connect(table.pk, alice)
    await recv(comm, "snapshot")
    for _ in range(101):
        await comm.send_to(text_data="[]")
    code = None
    for _ in range(200):
        out = await comm.receive_output(timeout=3)
        if out["type"] == "websocket.close":
            code = out["code"]
            break
    assert code == 4008  # 1008 is refused by Daphne; see core.sockets.FLOOD_CLOSE
    await comm.disconnect()


async def test_flooding_says_why_before_the_close(table, two_players, settings):
    settings.GAMES_WS_FLOOD = (3, 20)
    alice, _ = two_players
    comm = await connect(table.pk, alice)
    await recv(comm, "snapshot")
    for t in range(4):
        await send(comm, {"type": "ping", "t": t})
    # Every ping taken is answered before the close; pings are answered off the message
    # loop (a ping that comes while one waits on the database is answered at once), so
    # their pongs may come in another order when the machine is slow.
    assert sorted([(await recv(comm, "pong"))["t"] for _ in range(3)]) == [0, 1, 2]
    assert (await recv(comm, "error"))["code"] == "rate_limited"
    assert (await comm.receive_output(timeout=3)) == {"type": "websocket.close", "code": 4008}
    await comm.disconnect()


async def test_a_slow_ping_is_answered_before_the_flood_close(table, two_players, settings,
                                                             monkeypatch):
    """The first ping's answer is slow (it is answered off the message loop); the flood
    that comes meanwhile closes the socket only after that ping's pong (it used to overtake
    it, and the pong was lost)."""
    import asyncio

    from games.consumers import TableConsumer

    pong = TableConsumer._pong

    async def slow_pong(self, t):
        await asyncio.sleep(0.5)
        await pong(self, t)

    monkeypatch.setattr(TableConsumer, "_pong", slow_pong)
    settings.GAMES_WS_FLOOD = (3, 20)
    alice, _ = two_players
    comm = await connect(table.pk, alice)
    await recv(comm, "snapshot")
    for t in range(4):
        await send(comm, {"type": "ping", "t": t})
    frames = []
    while len(frames) < 4:
        frame = json.loads(await comm.receive_from(timeout=3))
        if frame["type"] != "presence":
            frames.append(frame)
    assert [f["type"] for f in frames] == ["pong", "pong", "pong", "error"], frames
    assert sorted(f["t"] for f in frames[:3]) == [0, 1, 2]
    assert frames[3]["code"] == "rate_limited"
    assert (await comm.receive_output(timeout=3)) == {"type": "websocket.close", "code": 4008}
    await comm.disconnect()


async def test_game_against_a_bot_over_the_socket(rooms, make_user, settings):
    settings.GAMES_WS_FLOOD = (10_000, 20)  # bots answer at once here: no human pace
    user = await database_sync_to_async(make_user)("dora")
    table = await database_sync_to_async(services.table_create)(
        user=user, room=rooms["classic"], seconds_per_turn=0, bot_level=1, target=50)
    comm = await connect(table.pk, user)
    try:
        frame = await recv(comm, "snapshot")
        n = 0
        while frame["table"]["status"] == "playing" and n < 2000:
            view = frame["view"]
            if view["to_act"] == 0 and view["legal_actions"]:
                state = await database_sync_to_async(
                    lambda: states.load(Table.objects.get(pk=table.pk).state))()
                n += 1
                await send(comm, {"type": "action", "action": timeouts.safe_action(state),
                                  "version": frame["version"], "id": f"m{n}"})
            nxt = await recv(comm)
            while nxt["type"] not in ("state", "snapshot"):
                assert nxt["type"] in ("ack", "presence"), nxt
                nxt = await recv(comm)
            if nxt["version"] > frame["version"]:
                frame = nxt
        assert frame["table"]["status"] == "finished"
        assert frame["table"]["finish"]["ending"] == "normal"
        assert frame["view"]["is_over"] and frame["view"]["seed"]
    finally:
        await comm.disconnect()


async def _presence_until(comm, seat, connected, limit=20):
    """Read frames until a ``presence`` frame shows ``seat`` (dis)connected; return it."""
    for _ in range(limit):
        frame = await recv(comm, "presence")
        if frame["seats"][seat]["connected"] is connected:
            return frame
    raise AssertionError(f"seat {seat} never shown connected={connected}")


async def test_sitting_over_the_socket_shows_the_new_player_connected(rooms, two_players):
    alice, bob = two_players
    table = await database_sync_to_async(services.table_create)(
        user=alice, room=rooms["rummy-3-4"], seat_count=3)
    async with two_sockets(table.pk, alice, bob) as (a, b, _, snap_b):
        assert snap_b["you"]["role"] == "spectator"
        await send(b, {"type": "sit", "id": "s1"})
        snap = await recv(b, "snapshot")
        assert snap["you"]["seat"] == 1 and snap["seats"][1]["connected"] is True
        frame = await _presence_until(a, 1, True)
        assert frame["seats"][1]["username"] == "bob" and frame["you"]["seat"] == 0
        seat = await database_sync_to_async(
            lambda: Table.objects.get(pk=table.pk).seats.get(index=1))()
        assert seat.user_id == bob.pk and seat.connected


async def test_a_ping_from_a_seat_shown_offline_tells_the_table(table, two_players):
    alice, bob = two_players
    async with two_sockets(table.pk, alice, bob) as (a, b, _, _):
        await _presence_until(a, 1, True)  # bob's socket opened
        # A presence update was lost (say, a disconnect handler ran for a stale socket).
        await database_sync_to_async(
            lambda: Table.objects.get(pk=table.pk).seats.filter(index=1).update(
                connected=False))()
        await send(b, {"type": "ping", "t": 1})
        assert (await recv(b, "pong"))["t"] == 1
        frame = await _presence_until(a, 1, True)
        assert frame["seats"][0]["connected"] is True


async def test_closing_one_of_two_tabs_leaves_the_player_at_the_table(table, two_players):
    """A player with the table open in two tabs closed one: their seat showed disconnected
    to everyone until the other tab's next ping ("alice is not at the table"), and a rematch
    offer made meanwhile lapsed as if they had left. The seat is theirs until the last tab
    closes."""
    from games.models import Seat

    alice, bob = two_players

    def connected():
        return Seat.objects.get(table_id=table.pk, user=alice).connected

    first, second = await connect(table.pk, alice), await connect(table.pk, alice)
    watcher = await connect(table.pk, bob)
    try:
        await recv(first, "snapshot")
        await recv(second, "snapshot")
        await recv(watcher, "snapshot")
        await second.disconnect()
        assert await database_sync_to_async(connected)() is True
        await send(first, {"type": "ping", "t": 1})  # (the table is still answered)
        assert (await recv(first, "pong"))["t"] == 1
        # the last tab closes: now she is away, and bob is told
        await first.disconnect()
        assert await database_sync_to_async(connected)() is False
        for _ in range(10):  # (bob's own arrival was announced first)
            shown = await recv(watcher, "presence")
            if shown["seats"][0]["connected"] is False:
                break
        assert shown["seats"][0]["connected"] is False
    finally:
        await watcher.disconnect()


async def test_a_player_back_at_the_finished_table_is_shown_back(table, two_players):
    """After the game, while a rematch may still be made: bob left the finished table and
    came back, and alice's page showed him gone until someone offered a rematch (presence
    was published there only with an offer standing)."""
    alice, bob = two_players
    await database_sync_to_async(services.table_resign)(table_id=table.pk, user=bob)
    a = await connect(table.pk, alice)
    try:
        await recv(a, "snapshot")
        b = await connect(table.pk, bob)
        await recv(b, "snapshot")
        await _presence_until(a, 1, True)
        await b.disconnect()
        await _presence_until(a, 1, False)
        b = await connect(table.pk, bob)
        await recv(b, "snapshot")
        await _presence_until(a, 1, True)
        await b.disconnect()
    finally:
        await a.disconnect()
