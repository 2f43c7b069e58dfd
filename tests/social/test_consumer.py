"""The notification socket: authentication, delivery to every tab, presence, frame checks."""
import json

import pytest
from asgiref.sync import sync_to_async
from django.db import connections
from django.test import Client
from django.urls import reverse

from social import presence, selectors, services
from social.models import ConversationMember, LastSeen, Message
from tests.support.sockets import WAIT, next_of, open_ready, open_tab

pytestmark = [pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
async def _close_worker_thread_connections():
    """Close the database connections opened in the sync worker thread, so PostgreSQL can
    drop the test database at the end."""
    yield
    await sync_to_async(connections.close_all)()


def _post(user, url, data):
    client = Client()
    client.force_login(user)
    return client.post(url, data, HTTP_ACCEPT="application/json")


async def test_anonymous_and_foreign_origin_are_refused(alice):
    # accepted, then closed with the documented code (a refused handshake is only 1006 to a
    # browser, which would reconnect for ever)
    comm, connected, _ = await open_tab(None)
    assert connected
    assert (await comm.receive_output(timeout=WAIT)) == {"type": "websocket.close", "code": 4401}
    await comm.disconnect()
    comm, connected, _ = await open_tab(alice, origin=False)
    assert not connected
    await comm.disconnect()


async def test_hello_carries_the_unread_count(alice, bob):
    await sync_to_async(services.message_send)(sender=alice, recipient=bob, body="hi")
    comm, hello = await open_ready(bob)
    try:
        assert hello["unread"] == 1 and hello["heartbeat"] > 0
    finally:
        await comm.disconnect()


async def test_message_reaches_both_tabs_of_recipient_and_senders_other_tab(alice, bob, carol):
    bob1, _ = await open_ready(bob)
    bob2, _ = await open_ready(bob)
    alice_tab, _ = await open_ready(alice)
    carol_tab, _ = await open_ready(carol)
    try:
        response = await sync_to_async(_post)(
            alice, reverse("social:conversation", args=["bob"]), {"body": "<b>hello</b> bob"}
        )
        assert response.status_code == 200
        for tab in (bob1, bob2):
            frame = await next_of(tab, "message")
            assert frame["message"]["body"] == "<b>hello</b> bob"
            assert frame["mine"] is False and frame["with"]["username"] == "alice"
            assert frame["unread"]["total"] == 1 and frame["unread"]["count"] == 1
        frame = await next_of(alice_tab, "message")
        assert frame["mine"] is True and frame["with"]["username"] == "bob"
        assert "unread" not in frame
        assert await carol_tab.receive_nothing(timeout=0.3)
    finally:
        for tab in (bob1, bob2, alice_tab, carol_tab):
            await tab.disconnect()


async def test_read_frame_marks_read_and_updates_other_tabs(alice, bob, carol):
    message = await sync_to_async(services.message_send)(sender=alice, recipient=bob, body="x")
    conv = message.conversation_id
    bob1, hello = await open_ready(bob)
    bob2, _ = await open_ready(bob)
    carol_tab, _ = await open_ready(carol)
    try:
        assert hello["unread"] == 1
        await bob1.send_json_to({"type": "read", "conversation": conv})
        for tab in (bob1, bob2):
            frame = await next_of(tab, "unread")
            assert frame == {"type": "unread", "total": 0, "conversation": conv, "count": 0}
        # Carol cannot mark someone else's conversation: an error, nothing changes.
        await sync_to_async(services.message_send)(sender=alice, recipient=bob, body="y")
        await carol_tab.send_json_to({"type": "read", "conversation": conv})
        error = await next_of(carol_tab, "error")
        assert error["code"] == "not_found"
        assert await sync_to_async(selectors.unread_total)(bob.pk) == 1
    finally:
        for tab in (bob1, bob2, carol_tab):
            await tab.disconnect()


@pytest.mark.parametrize(
    "raw,code",
    [
        ("not json", "bad_json"),
        ("[1, 2]", "bad_json"),
        ('{"no": "type"}', "bad_message"),
        ('{"type": 5}', "bad_message"),
        ('{"type": "launch"}', "bad_message"),
        ('{"type": "read", "conversation": "1"}', "bad_message"),
        ('{"type": "read", "conversation": true}', "bad_message"),
        ('{"type": "read", "conversation": 1, "up_to": -1}', "bad_message"),
        ('{"type": "read", "conversation": 999999}', "not_found"),
        (json.dumps({"type": "ping", "pad": "x" * 17000}), "too_large"),
        ("[" * 5000 + "]" * 5000, "bad_json"),  # nested too deep for Python's parser
        ('{"type": "ping", "pad": ' + "[" * 20 + "]" * 20 + "}", "bad_json"),  # > 8 levels
    ],
)
async def test_bad_frames_get_error_frames(alice, raw, code):
    tab, _ = await open_ready(alice)
    try:
        await tab.send_to(text_data=raw)
        frame = await next_of(tab, "error")
        assert frame["code"] == code and frame["message"]
        # The socket stays usable.
        await tab.send_json_to({"type": "ping"})
        assert (await next_of(tab, "pong")) == {"type": "pong"}
    finally:
        await tab.disconnect()


async def test_binary_frames_are_refused(alice):
    tab, _ = await open_ready(alice)
    try:
        await tab.send_to(bytes_data=b"\x00\x01")
        assert (await next_of(tab, "error"))["code"] == "bad_message"
    finally:
        await tab.disconnect()


async def test_flooding_closes_the_socket(alice, settings):
    settings.SOCIAL_FRAMES_PER_MINUTE = 5
    tab, _ = await open_ready(alice)
    try:
        for _ in range(6):
            await tab.send_to(text_data='{"type": "nothing"}')
        frames = [await tab.receive_output(timeout=WAIT) for _ in range(7)]
        # 4008, not 1008: Daphne only lets a server close with 1000 or 3000-4999.
        assert frames[-1]["type"] == "websocket.close" and frames[-1]["code"] == 4008
        assert json.loads(frames[-2]["text"])["code"] == "rate_limited"
    finally:
        await tab.disconnect()


async def test_presence_follows_two_tabs(contacts):
    alice, bob = contacts
    watcher, _ = await open_ready(bob)
    try:
        tab1, _ = await open_ready(alice)
        frame = await next_of(watcher, "presence")
        assert frame["user"]["username"] == "alice" and frame["state"] == "online"
        tab2, _ = await open_ready(alice)
        assert await watcher.receive_nothing(timeout=0.3)  # still online: no news
        await tab1.disconnect()
        assert await watcher.receive_nothing(timeout=0.3)
        states = await sync_to_async(presence.presence_of)([alice.pk])
        assert states[alice.pk].state == "online"
        await tab2.disconnect()
        frame = await next_of(watcher, "presence")
        assert frame["state"] == "offline" and frame["last_seen"]
        states = await sync_to_async(presence.presence_of)([alice.pk])
        assert states[alice.pk].state == "offline" and states[alice.pk].last_seen
        assert await sync_to_async(LastSeen.objects.filter(user=alice).exists)()
    finally:
        await watcher.disconnect()


async def test_presence_is_only_told_to_contacts(alice, carol):
    watcher, _ = await open_ready(carol)
    try:
        tab, _ = await open_ready(alice)
        assert await watcher.receive_nothing(timeout=0.3)
        await tab.disconnect()
        assert await watcher.receive_nothing(timeout=0.3)
    finally:
        await watcher.disconnect()


async def test_contact_request_arrives_live(alice, bob, carol):
    bob_tab, _ = await open_ready(bob)
    carol_tab, _ = await open_ready(carol)
    try:
        response = await sync_to_async(_post)(
            alice, reverse("social:request_send", args=["bob"]), {}
        )
        assert response.status_code == 200
        frame = await next_of(bob_tab, "contact_request")
        assert frame["event"] == "received" and frame["request"]["user"]["username"] == "alice"
        assert await carol_tab.receive_nothing(timeout=0.3)
    finally:
        await bob_tab.disconnect()
        await carol_tab.disconnect()


async def test_blocked_sender_reaches_no_tab(alice, bob):
    await sync_to_async(services.block_add)(user=bob, target=alice)
    bob_tab, _ = await open_ready(bob)
    try:
        response = await sync_to_async(_post)(
            alice, reverse("social:conversation", args=["bob"]), {"body": "let me in"}
        )
        assert response.status_code == 403
        response = await sync_to_async(_post)(
            alice, reverse("social:request_send", args=["bob"]), {}
        )
        assert response.status_code == 403
        assert await bob_tab.receive_nothing(timeout=0.3)
        assert not await sync_to_async(Message.objects.exists)()
        assert not await sync_to_async(ConversationMember.objects.exists)()
    finally:
        await bob_tab.disconnect()


# --- Sending over the socket ("send" -> "ack" / "error") ---------------------------------------

def _stored():
    return Message.objects.count(), ConversationMember.objects.count()


async def test_send_frame_acks_and_reaches_every_tab(alice, bob, carol):
    bob1, _ = await open_ready(bob)
    bob2, _ = await open_ready(bob)
    alice1, _ = await open_ready(alice)
    alice2, _ = await open_ready(alice)
    carol_tab, _ = await open_ready(carol)
    try:
        await alice1.send_json_to(
            {"type": "send", "client_id": "c-1", "to": bob.pk, "body": " <b>hi</b> bob \r\n"}
        )
        ack = await next_of(alice1, "ack")
        assert ack["client_id"] == "c-1"
        stored = await sync_to_async(Message.objects.get)()
        assert ack["message"]["id"] == stored.pk and stored.body == "<b>hi</b> bob"
        assert ack["message"]["sender"]["username"] == "alice"
        for tab in (bob1, bob2):
            frame = await next_of(tab, "message")
            assert frame["mine"] is False and frame["message"] == ack["message"]
            assert frame["unread"] == {
                "total": 1, "conversation": stored.conversation_id, "count": 1
            }
        for tab in (alice1, alice2):  # the sending tab too (pages dedupe by id)
            frame = await next_of(tab, "message")
            assert frame["mine"] is True and frame["with"]["username"] == "bob"
        assert await carol_tab.receive_nothing(timeout=0.3)
        # An integer client id works as well.
        await bob2.send_json_to({"type": "send", "client_id": 7, "to": alice.pk, "body": "yo"})
        assert (await next_of(bob2, "ack"))["client_id"] == 7
        assert (await next_of(alice2, "message"))["message"]["body"] == "yo"
    finally:
        for tab in (bob1, bob2, alice1, alice2, carol_tab):
            await tab.disconnect()


@pytest.mark.parametrize(
    "frame,code",
    [
        ({"to": "BOB", "body": "hi"}, "bad_message"),  # no client_id
        ({"client_id": "", "to": "BOB", "body": "hi"}, "bad_message"),
        ({"client_id": "x" * 65, "to": "BOB", "body": "hi"}, "bad_message"),
        ({"client_id": 1.5, "to": "BOB", "body": "hi"}, "bad_message"),
        ({"client_id": "c", "to": "bob", "body": "hi"}, "bad_message"),  # a name, not an id
        ({"client_id": "c", "to": True, "body": "hi"}, "bad_message"),
        ({"client_id": "c", "to": -3, "body": "hi"}, "bad_message"),
        ({"client_id": "c", "to": "BOB"}, "bad_message"),
        ({"client_id": "c", "to": "BOB", "body": ["hi"]}, "bad_message"),
        ({"client_id": "c", "to": "BOB", "body": "   \n "}, "empty"),
        ({"client_id": "c", "to": "BOB", "body": "x" * 2001}, "too_long"),
        ({"client_id": "c", "to": 10**9, "body": "hi"}, "not_found"),
        ({"client_id": "c", "to": "ALICE", "body": "hi"}, "self"),
        ({"client_id": "c", "to": "INACTIVE", "body": "hi"}, "not_found"),
    ],
)
async def test_send_frame_validation_stores_nothing(alice, bob, make_user, frame, code):
    ghost = await sync_to_async(make_user)(username="ghost", is_active=False)
    ids = {"BOB": bob.pk, "ALICE": alice.pk, "INACTIVE": ghost.pk}
    frame = {"type": "send", **{k: ids.get(v, v) if k == "to" else v for k, v in frame.items()}}
    alice_tab, _ = await open_ready(alice)
    bob_tab, _ = await open_ready(bob)
    try:
        await alice_tab.send_json_to(frame)
        error = await next_of(alice_tab, "error")
        assert error["code"] == code and error["message"]
        # The answer names the frame it answers whenever the client id was usable.
        assert error.get("client_id") == ("c" if frame.get("client_id") == "c" else None)
        assert await sync_to_async(_stored)() == (0, 0)
        assert await bob_tab.receive_nothing(timeout=0.3)
        # The socket stays usable.
        await alice_tab.send_json_to({"type": "ping"})
        assert (await next_of(alice_tab, "pong")) == {"type": "pong"}
    finally:
        await alice_tab.disconnect()
        await bob_tab.disconnect()


@pytest.mark.parametrize("how", ["block_by_recipient", "block_by_sender", "nobody", "contacts"])
async def test_send_frame_follows_the_policy(alice, bob, how):
    if how == "block_by_recipient":
        await sync_to_async(services.block_add)(user=bob, target=alice)
    elif how == "block_by_sender":
        await sync_to_async(services.block_add)(user=alice, target=bob)
    else:
        await sync_to_async(services.message_policy_set)(user=bob, policy=how)
    alice_tab, _ = await open_ready(alice)
    bob_tab, _ = await open_ready(bob)
    try:
        await alice_tab.send_json_to(
            {"type": "send", "client_id": "p", "to": bob.pk, "body": "let me in"}
        )
        error = await next_of(alice_tab, "error")
        expected = "not_contacts" if how == "contacts" else "not_allowed"
        assert error["code"] == expected and error["client_id"] == "p"
        if how != "contacts":  # a block reads exactly like "nobody"
            assert error["message"] == "You cannot message this user."
        assert await sync_to_async(_stored)() == (0, 0)
        assert await bob_tab.receive_nothing(timeout=0.3)
    finally:
        await alice_tab.disconnect()
        await bob_tab.disconnect()


async def test_send_frame_rate_limit_answers_and_stores_nothing(alice, bob, settings):
    settings.SOCIAL_MESSAGE_RATE = 2
    alice_tab, _ = await open_ready(alice)
    bob_tab, _ = await open_ready(bob)
    try:
        for n in (1, 2):
            await alice_tab.send_json_to(
                {"type": "send", "client_id": n, "to": bob.pk, "body": f"m{n}"}
            )
            assert (await next_of(alice_tab, "ack"))["client_id"] == n
            assert (await next_of(bob_tab, "message"))["message"]["body"] == f"m{n}"
        await alice_tab.send_json_to({"type": "send", "client_id": 3, "to": bob.pk, "body": "m3"})
        error = await next_of(alice_tab, "error")
        assert error["code"] == "rate_limited" and error["client_id"] == 3
        assert "too fast" in error["message"]
        bodies = await sync_to_async(
            lambda: list(Message.objects.order_by("id").values_list("body", flat=True))
        )()
        assert bodies == ["m1", "m2"]
        assert await bob_tab.receive_nothing(timeout=0.3)
        # The HTTP form shares the same limit.
        response = await sync_to_async(_post)(
            alice, reverse("social:conversation", args=["bob"]), {"body": "m4"}
        )
        assert response.status_code == 429
        assert await sync_to_async(Message.objects.count)() == 2
    finally:
        await alice_tab.disconnect()
        await bob_tab.disconnect()


async def test_send_frame_from_an_account_deactivated_since_connecting_is_refused(alice, bob):
    alice_tab, _ = await open_ready(alice)
    bob_tab, _ = await open_ready(bob)
    try:
        await sync_to_async(type(alice).objects.filter(pk=alice.pk).update)(is_active=False)
        await alice_tab.send_json_to({"type": "send", "client_id": "d", "to": bob.pk, "body": "x"})
        error = await next_of(alice_tab, "error")
        assert error["code"] == "not_allowed" and error["client_id"] == "d"
        assert await sync_to_async(_stored)() == (0, 0)
        assert await bob_tab.receive_nothing(timeout=0.3)
    finally:
        await alice_tab.disconnect()
        await bob_tab.disconnect()


class _RedisDown:
    """The presence store while Redis restarts (as the worker saw it: Error 111)."""

    def __getattr__(self, name):
        def fail(*args, **kwargs):
            from redis.exceptions import ConnectionError as RedisConnectionError

            raise RedisConnectionError("Error 111 connecting to 127.0.0.1:6379. Refused.")
        return fail


async def test_a_redis_restart_keeps_the_socket_open_and_presence_catches_up(contacts,
                                                                           monkeypatch):
    alice, bob = contacts
    watcher, _ = await open_ready(bob)
    tab, _ = await open_ready(alice)
    try:
        assert (await next_of(watcher, "presence"))["state"] == "online"
        real_store = presence._store
        monkeypatch.setattr(presence, "_store", lambda: _RedisDown())
        await tab.send_json_to({"type": "ping"})
        assert (await tab.receive_json_from(timeout=WAIT)) == {"type": "pong"}  # not 1011
        # Redis is back: the next heartbeat refreshes the connection (registers it again
        # when Redis lost it, and tells the contacts then)
        monkeypatch.setattr(presence, "_store", real_store)
        await tab.send_json_to({"type": "ping"})
        assert (await tab.receive_json_from(timeout=WAIT)) == {"type": "pong"}
        states = await sync_to_async(presence.presence_of)([alice.pk])
        assert states[alice.pk].state == "online"
    finally:
        await tab.disconnect()
        await watcher.disconnect()


async def test_a_handshake_while_redis_is_down_closes_with_4503(alice, monkeypatch):
    monkeypatch.setattr(presence, "_store", lambda: _RedisDown())
    comm, connected, _ = await open_tab(alice)
    assert connected
    assert (await comm.receive_output(timeout=WAIT)) == {"type": "websocket.close",
                                                         "code": 4503}
    await comm.disconnect()
