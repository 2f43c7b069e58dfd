"""The notification socket: authentication, delivery to every tab, presence, frame checks."""
import json

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.db import connections
from django.test import Client
from django.urls import reverse

from ginsite.asgi import application
from social import presence, selectors, services
from social.models import ConversationMember, LastSeen, Message

pytestmark = [pytest.mark.django_db(transaction=True)]

ORIGIN = (b"origin", b"http://testserver")
WAIT = 3


@pytest.fixture(autouse=True)
async def _close_worker_thread_connections():
    """Close the database connections opened in the sync worker thread, so PostgreSQL can
    drop the test database at the end."""
    yield
    await sync_to_async(connections.close_all)()


def _session_cookie(user) -> str:
    client = Client()
    client.force_login(user)
    return client.cookies["sessionid"].value


async def open_tab(user=None, origin=True):
    headers = [ORIGIN] if origin else []
    if user is not None:
        sid = await sync_to_async(_session_cookie)(user)
        headers.append((b"cookie", f"sessionid={sid}".encode()))
    comm = WebsocketCommunicator(application, "/ws/notify/", headers=headers)
    connected, code = await comm.connect(timeout=WAIT)
    return comm, connected, code


async def open_ready(user):
    comm, connected, _ = await open_tab(user)
    assert connected
    hello = await comm.receive_json_from(timeout=WAIT)
    assert hello["type"] == "hello"
    return comm, hello


async def next_of(comm, kind):
    """The next frame of type ``kind`` (skipping others, e.g. presence)."""
    for _ in range(10):
        frame = await comm.receive_json_from(timeout=WAIT)
        if frame["type"] == kind:
            return frame
    raise AssertionError(f"no {kind} frame")


def _post(user, url, data):
    client = Client()
    client.force_login(user)
    return client.post(url, data, HTTP_ACCEPT="application/json")


async def test_anonymous_and_foreign_origin_are_refused(alice):
    comm, connected, code = await open_tab(None)
    assert not connected and code == 4401
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
        ("[1, 2]", "bad_frame"),
        ('{"no": "type"}', "bad_frame"),
        ('{"type": 5}', "bad_frame"),
        ('{"type": "launch"}', "unknown_type"),
        ('{"type": "read", "conversation": "1"}', "bad_frame"),
        ('{"type": "read", "conversation": true}', "bad_frame"),
        ('{"type": "read", "conversation": 1, "up_to": -1}', "bad_frame"),
        ('{"type": "read", "conversation": 999999}', "not_found"),
        (json.dumps({"type": "ping", "pad": "x" * 5000}), "too_large"),
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
        assert (await next_of(tab, "error"))["code"] == "bad_frame"
    finally:
        await tab.disconnect()


async def test_flooding_closes_the_socket(alice, settings):
    settings.SOCIAL_FRAMES_PER_MINUTE = 5
    tab, _ = await open_ready(alice)
    try:
        for _ in range(6):
            await tab.send_to(text_data='{"type": "nothing"}')
        frames = [await tab.receive_output(timeout=WAIT) for _ in range(7)]
        assert frames[-1]["type"] == "websocket.close" and frames[-1]["code"] == 1008
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
