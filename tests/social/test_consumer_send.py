"""The notification socket's "send" frame: answered by "ack" or "error", delivered to every
tab, checked like the conversation page's form (validation, policy, rate limit)."""

import pytest
from asgiref.sync import sync_to_async
from django.urls import reverse

from social import services
from social.models import Message
from tests.support.sockets import next_of, open_ready
from tests.support.sockets import post_as as _post
from tests.support.sockets import stored_messages as _stored

pytestmark = [pytest.mark.django_db(transaction=True),
              pytest.mark.usefixtures("close_worker_thread_connections")]


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
