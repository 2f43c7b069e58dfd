"""The notification socket: authentication, delivery to every tab, presence, frame checks,
Redis restarting (messages sent over the socket: test_consumer_send.py)."""
import json

import pytest
from asgiref.sync import sync_to_async
from django.urls import reverse

from social import presence, selectors, services
from social.models import ConversationMember, LastSeen, Message
from tests.support.sockets import WAIT, next_of, open_ready, open_tab
from tests.support.sockets import post_as as _post

pytestmark = [pytest.mark.django_db(transaction=True),
              pytest.mark.usefixtures("close_worker_thread_connections")]


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
        # ids past any database integer, and a NUL, which PostgreSQL refuses in text
        (json.dumps({"type": "read", "conversation": 10**25}), "bad_message"),
        (json.dumps({"type": "read", "conversation": 1, "up_to": 10**25}), "bad_message"),
        (json.dumps({"type": "send", "client_id": "c1", "to": 10**25, "body": "hi"}),
         "bad_message"),
        (json.dumps({"type": "send", "client_id": "c1", "to": 1, "body": "hi\x00"}),
         "bad_message"),
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
        # frames still arriving get nothing more: no error and no close on a closed socket
        for _ in range(3):
            await tab.send_to(text_data='{"type": "ping"}')
        assert await tab.receive_nothing(timeout=0.3)
    finally:
        await tab.disconnect()


async def test_presence_follows_two_tabs(contacts, settings):
    settings.SOCIAL_PRESENCE_LEAVE_GRACE = 0.3
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
        frame = await watcher.receive_json_from(timeout=5)  # (after the leave grace)
        assert frame["type"] == "presence"
        assert frame["state"] == "offline" and frame["last_seen"]
        states = await sync_to_async(presence.presence_of)([alice.pk])
        assert states[alice.pk].state == "offline" and states[alice.pk].last_seen
        assert await sync_to_async(LastSeen.objects.filter(user=alice).exists)()
    finally:
        await watcher.disconnect()


async def test_a_page_change_is_no_absence(contacts, settings):
    """Going from page to page closes the notification socket and opens the next page's: the
    contacts saw "offline" then "online" at every click. A closed connection now counts for
    ``SOCIAL_PRESENCE_LEAVE_GRACE`` more seconds; only a real absence is told."""
    settings.SOCIAL_PRESENCE_LEAVE_GRACE = 1.0
    alice, bob = contacts
    watcher, _ = await open_ready(bob)
    try:
        page, _ = await open_ready(alice)
        assert (await next_of(watcher, "presence"))["state"] == "online"
        for _ in range(3):  # three clicks
            await page.disconnect()
            page, _ = await open_ready(alice)
        assert await watcher.receive_nothing(timeout=1.5)  # past the grace: no news
        states = await sync_to_async(presence.presence_of)([alice.pk])
        assert states[alice.pk].state == "online"
        await page.disconnect()  # she leaves the site
        assert await watcher.receive_nothing(timeout=0.6)  # not at once ...
        frame = await watcher.receive_json_from(timeout=5)  # ... once the grace has passed
        assert frame["type"] == "presence" and frame["state"] == "offline"
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


@pytest.mark.parametrize("answer", ["request_accept", "request_decline"])
async def test_an_answered_request_leaves_the_senders_list_live(alice, bob, answer):
    """The sender's "Requests you sent" lost the row only on a reload (its Cancel then
    answered 404): accepting or declining tells the sender's tabs too."""
    request = await sync_to_async(services.contact_request_send)(sender=alice, recipient=bob)
    alice_tab, _ = await open_ready(alice)
    try:
        response = await sync_to_async(_post)(bob, reverse(f"social:{answer}",
                                                           args=[request.pk]), {})
        assert response.status_code == 200
        frame = await next_of(alice_tab, "contact_request")
        assert frame == {"type": "contact_request", "event": "removed",
                         "request": {"id": request.pk}}
    finally:
        await alice_tab.disconnect()


async def test_a_new_contact_arrives_with_the_rating_the_list_shows(alice, bob):
    """The live entry of a new contact had no rating, which the list's rows show (and a reload
    then did)."""
    from leaderboards.models import Rating

    await sync_to_async(Rating.objects.create)(user=bob, mode="classic", rating=1612,
                                               provisional=False, games=30)
    request = await sync_to_async(services.contact_request_send)(sender=alice, recipient=bob)
    alice_tab, _ = await open_ready(alice)
    bob_tab, _ = await open_ready(bob)
    try:
        response = await sync_to_async(_post)(bob, reverse("social:request_accept",
                                                           args=[request.pk]), {})
        assert response.status_code == 200
        frame = await next_of(alice_tab, "contact")
        assert frame["event"] == "added" and frame["user"]["username"] == "bob"
        assert frame["rating"] == "1612"
        # alice is told that bob accepted (nothing had told her: an audit); bob knows
        assert frame["accepted"] is True
        assert (await next_of(bob_tab, "contact"))["accepted"] is False
    finally:
        await alice_tab.disconnect()
        await bob_tab.disconnect()


async def test_blocked_sender_reaches_no_tab(alice, bob):
    await sync_to_async(services.block_add)(user=bob, target=alice)
    bob_tab, _ = await open_ready(bob)
    try:
        response = await sync_to_async(_post)(
            alice, reverse("social:conversation", args=["bob"]), {"body": "let me in"}
        )
        assert response.status_code == 403
        # a contact request seems to go (a refusal would tell her), but reaches no tab of bob
        response = await sync_to_async(_post)(
            alice, reverse("social:request_send", args=["bob"]), {}
        )
        assert response.status_code == 200
        assert await bob_tab.receive_nothing(timeout=0.3)
        assert not await sync_to_async(Message.objects.exists)()
        assert not await sync_to_async(ConversationMember.objects.exists)()
    finally:
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


async def test_a_block_reaches_the_blocked_as_a_plain_remove(contacts):
    """The blocked contact's open pages drop the blocker live, with the very frame a Remove
    sends (their Contacts page kept the blocker, online, with Message): nothing tells the two
    apart."""
    alice, bob = contacts
    bob_tab, _ = await open_ready(bob)
    try:
        await sync_to_async(services.block_add)(user=alice, target=bob)
        blocked = await next_of(bob_tab, "contact")
        await sync_to_async(services.block_remove)(user=alice, target=bob)
        await sync_to_async(services.contact_request_send)(sender=alice, recipient=bob)
        request = await sync_to_async(selectors.requests_incoming(bob).get)()
        await sync_to_async(services.contact_request_accept)(user=bob, request_id=request.pk)
        await sync_to_async(services.contact_remove)(user=alice, other=bob)
        while (removed := await next_of(bob_tab, "contact"))["event"] != "removed":
            pass
        assert blocked == removed and blocked["event"] == "removed"
    finally:
        await bob_tab.disconnect()
