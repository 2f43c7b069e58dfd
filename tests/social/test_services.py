"""Contacts, blocking, preferences and messages through the services."""
import pytest

from social import policy, selectors, services
from social.models import (
    Block,
    Contact,
    ContactRequest,
    ConversationMember,
    Message,
    MessagePolicy,
)
from social.policy import Reason

pytestmark = pytest.mark.django_db


def test_request_accept_makes_symmetric_contacts(alice, bob):
    request = services.contact_request_send(sender=alice, recipient=bob)
    assert request is not None
    assert list(selectors.requests_incoming(bob)) == [request]
    assert list(selectors.requests_outgoing(alice)) == [request]
    services.contact_request_accept(user=bob, request_id=request.pk)
    assert policy.are_contacts(alice.pk, bob.pk) and policy.are_contacts(bob.pk, alice.pk)
    assert not ContactRequest.objects.exists()
    assert [row.user for row in selectors.contact_list(alice)] == [bob]


def test_crossed_requests_become_contacts(alice, bob):
    services.contact_request_send(sender=alice, recipient=bob)
    assert services.contact_request_send(sender=bob, recipient=alice) is None
    assert Contact.objects.count() == 2
    assert not ContactRequest.objects.exists()


def test_duplicate_request_is_harmless(alice, bob):
    first = services.contact_request_send(sender=alice, recipient=bob)
    assert services.contact_request_send(sender=alice, recipient=bob) == first
    assert ContactRequest.objects.count() == 1


def test_decline_and_cancel(alice, bob):
    request = services.contact_request_send(sender=alice, recipient=bob)
    services.contact_request_decline(user=bob, request_id=request.pk)
    assert not ContactRequest.objects.exists() and not Contact.objects.exists()
    request = services.contact_request_send(sender=alice, recipient=bob)
    services.contact_request_cancel(user=alice, request_id=request.pk)
    assert not ContactRequest.objects.exists()


def test_only_the_right_side_may_answer_a_request(alice, bob, carol):
    request = services.contact_request_send(sender=alice, recipient=bob)
    for user, fn in [
        (carol, services.contact_request_accept),
        (alice, services.contact_request_accept),  # the sender cannot accept their own
        (carol, services.contact_request_decline),
        (carol, services.contact_request_cancel),
        (bob, services.contact_request_cancel),
    ]:
        with pytest.raises(services.NotFound):
            fn(user=user, request_id=request.pk)
    assert ContactRequest.objects.get() == request
    assert not Contact.objects.exists()


def test_cannot_request_self_or_existing_contact(contacts, carol):
    alice, bob = contacts
    with pytest.raises(services.PolicyDenied) as exc:
        services.contact_request_send(sender=carol, recipient=carol)
    assert exc.value.verdict.reason == Reason.SELF
    with pytest.raises(services.SocialError):
        services.contact_request_send(sender=alice, recipient=bob)


def test_contact_remove(contacts, carol):
    alice, bob = contacts
    with pytest.raises(services.NotFound):
        services.contact_remove(user=alice, other=carol)
    services.contact_remove(user=bob, other=alice)
    assert not Contact.objects.exists()


def test_block_removes_contact_and_requests_and_stops_everything_both_ways(contacts, carol):
    alice, bob = contacts
    services.contact_request_send(sender=carol, recipient=alice)
    services.block_add(user=alice, target=bob)
    services.block_add(user=alice, target=carol)
    assert not Contact.objects.exists()
    assert not ContactRequest.objects.exists()
    for a, b in [(alice, bob), (bob, alice), (carol, alice), (alice, carol)]:
        for check in (policy.can_message, policy.can_request, policy.can_invite):
            verdict = check(a, b)
            assert not verdict and verdict.reason == Reason.BLOCKED
        with pytest.raises(services.PolicyDenied):
            services.message_send(sender=a, recipient=b, body="hi")
        if a == alice:  # the blocker's own request is refused: she knows
            with pytest.raises(services.PolicyDenied):
                services.contact_request_send(sender=a, recipient=b)
        else:  # the blocked one's goes, unseen: a refusal would tell them of the block
            services.contact_request_send(sender=a, recipient=b)
            assert not selectors.requests_incoming(b).filter(from_user=a).exists()
    assert not Message.objects.exists()
    assert set(ContactRequest.objects.values_list("from_user", "to_user")) == {
        (bob.pk, alice.pk), (carol.pk, alice.pk)}
    ContactRequest.objects.all().delete()
    services.block_remove(user=alice, target=bob)
    assert policy.can_message(bob, alice)
    with pytest.raises(services.NotFound):
        services.block_remove(user=alice, target=bob)


def test_a_block_reads_what_they_had_sent(contacts, carol, make_user):
    """Messages from someone you block no longer count in your badge (they counted until the
    conversation was opened); the other conversations keep theirs."""
    alice, bob = contacts
    services.message_send(sender=bob, recipient=alice, body="one")
    services.message_send(sender=bob, recipient=alice, body="two")
    services.message_send(sender=carol, recipient=alice, body="hello")
    assert selectors.unread_total(alice.pk) == 3
    services.block_add(user=alice, target=bob)
    assert selectors.unread_total(alice.pk) == 1
    assert selectors.unread_total(bob.pk) == 0  # (nothing changes on his side)
    services.block_add(user=alice, target=make_user("stranger"))  # no conversation: fine


def test_blocked_wording_is_the_same_as_preference(alice, bob, carol):
    services.block_add(user=bob, target=alice)
    services.message_policy_set(user=carol, policy=MessagePolicy.NOBODY)
    blocked = policy.can_message(alice, bob)
    nobody = policy.can_message(alice, carol)
    assert blocked.reason == Reason.BLOCKED and nobody.reason == Reason.PREFERENCE
    assert blocked.message == nobody.message == "You cannot message this user."
    assert "block" not in blocked.message.lower()


def test_message_preference(alice, bob, carol):
    services.message_policy_set(user=bob, policy=MessagePolicy.CONTACTS)
    assert policy.can_message(alice, bob).reason == Reason.NOT_CONTACTS
    services.contact_request_send(sender=alice, recipient=bob)
    services.contact_request_accept(
        user=bob, request_id=ContactRequest.objects.get().pk
    )
    assert policy.can_message(alice, bob)
    assert policy.can_message(carol, bob).reason == Reason.NOT_CONTACTS
    services.message_policy_set(user=bob, policy=MessagePolicy.NOBODY)
    assert policy.can_message(alice, bob).reason == Reason.PREFERENCE
    with pytest.raises(services.SocialError):
        services.message_policy_set(user=bob, policy="friends")
    assert selectors.message_policy_get(bob) == MessagePolicy.NOBODY


def test_message_validation(alice, bob):
    for body, code in [("", "empty"), ("   \n ", "empty"), ("\u200b\ufeff", "empty"),
                       ("x" * 2001, "too_long"), (None, "invalid"), (["a"], "invalid"),
                       # a bell, an escape, a NUL; a bidirectional override that makes a
                       # link's ".../\u202egpj.exe" read ".../exe.jpg"
                       ("bell\x07", "control_characters"), ("esc\x1b[31m", "control_characters"),
                       ("nul\x00", "control_characters"),
                       ("https://example.org/\u202egpj.exe", "control_characters")]:
        with pytest.raises(services.SocialError) as exc:
            services.message_send(sender=alice, recipient=bob, body=body)
        assert exc.value.code == code
    services.message_send(sender=alice, recipient=bob, body="x" * 2000)
    # line breaks and tabs are text; a right-to-left mark (not an override) is too
    services.message_send(sender=alice, recipient=bob,
                          body="a\tb\nc \u200f\u05e9\u05dc\u05d5\u05dd")
    assert Message.objects.count() == 2


def test_rate_limit_clear_error_and_nothing_stored(alice, bob, settings):
    settings.SOCIAL_MESSAGE_RATE = 4
    for i in range(4):
        services.message_send(sender=alice, recipient=bob, body=f"m{i}")
    with pytest.raises(services.PolicyDenied) as exc:
        services.message_send(sender=alice, recipient=bob, body="one too many")
    assert exc.value.verdict.reason == Reason.RATE_LIMITED
    assert "too fast" in str(exc.value) and exc.value.verdict.retry_after >= 1
    assert Message.objects.count() == 4
    assert not Message.objects.filter(body="one too many").exists()
    # The limit is per sender: bob can still answer.
    services.message_send(sender=bob, recipient=alice, body="ok")


def test_new_accounts_have_a_stricter_rate(make_user, bob, settings):
    settings.SOCIAL_MESSAGE_RATE_NEW_ACCOUNT = 2
    newbie = make_user(username="newbie")
    services.message_send(sender=newbie, recipient=bob, body="1")
    services.message_send(sender=newbie, recipient=bob, body="2")
    with pytest.raises(services.PolicyDenied) as exc:
        services.message_send(sender=newbie, recipient=bob, body="3")
    assert exc.value.code == "rate_limited"
    assert Message.objects.count() == 2


def test_refusal_for_another_reason_costs_no_rate_slot(alice, bob, carol, settings):
    settings.SOCIAL_MESSAGE_RATE = 2
    services.message_policy_set(user=carol, policy=MessagePolicy.NOBODY)
    for _ in range(5):
        with pytest.raises(services.PolicyDenied):
            services.message_send(sender=alice, recipient=carol, body="hi")
    services.message_send(sender=alice, recipient=bob, body="1")
    services.message_send(sender=alice, recipient=bob, body="2")


def test_unread_counts_read_and_delete_for_yourself(alice, bob, carol):
    m1 = services.message_send(sender=alice, recipient=bob, body="one")
    services.message_send(sender=alice, recipient=bob, body="two")
    services.message_send(sender=carol, recipient=bob, body="from carol")
    assert selectors.unread_total(bob.pk) == 3
    assert selectors.unread_total(alice.pk) == 0
    conv = m1.conversation_id
    assert selectors.conversation_unread(bob.pk, conv) == 2
    rows = {m.other.username: m.unread for m in selectors.conversation_list(bob)}
    assert rows == {"alice": 2, "carol": 1}
    assert services.conversation_mark_read(user=bob, conversation_id=conv, up_to=m1.pk) == 2
    assert services.conversation_mark_read(user=bob, conversation_id=conv) == 1
    # Alice's reply makes nothing unread for alice herself.
    services.message_send(sender=bob, recipient=alice, body="three")
    assert selectors.unread_total(alice.pk) == 1
    # Deleting is for yourself only.
    services.conversation_delete(user=alice, conversation_id=conv)
    assert selectors.unread_total(alice.pk) == 0
    assert list(selectors.conversation_list(alice)) == []
    bob_member = selectors.conversation_member(bob, conv)
    history, _ = selectors.conversation_history(bob_member)
    assert [m.body for m in history] == ["one", "two", "three"]
    # A new message shows the conversation again, from that message on.
    services.message_send(sender=bob, recipient=alice, body="four")
    alice_member = selectors.conversation_member(alice, conv)
    history, _ = selectors.conversation_history(alice_member)
    assert [m.body for m in history] == ["four"]
    assert selectors.unread_total(alice.pk) == 1


def test_third_user_cannot_touch_a_conversation(alice, bob, carol):
    message = services.message_send(sender=alice, recipient=bob, body="secret")
    with pytest.raises(services.NotFound):
        services.conversation_mark_read(user=carol, conversation_id=message.conversation_id)
    with pytest.raises(services.NotFound):
        services.conversation_delete(user=carol, conversation_id=message.conversation_id)
    with pytest.raises(ConversationMember.DoesNotExist):
        selectors.conversation_member(carol, message.conversation_id)
    member = ConversationMember.objects.get(user=bob)
    assert member.deleted_up_to == 0 and member.last_read_id == 0


def test_history_pagination_newest_at_the_bottom(alice, bob, settings):
    settings.SOCIAL_MESSAGE_RATE = 100
    settings.SOCIAL_HISTORY_PAGE = 5
    for i in range(12):
        services.message_send(sender=alice, recipient=bob, body=f"m{i}")
    member = selectors.conversation_member_with(bob, alice)
    page, more = selectors.conversation_history(member)
    assert [m.body for m in page] == [f"m{i}" for i in range(7, 12)] and more
    page, more = selectors.conversation_history(member, before=page[0].pk)
    assert [m.body for m in page] == [f"m{i}" for i in range(2, 7)] and more
    page, more = selectors.conversation_history(member, before=page[0].pk)
    assert [m.body for m in page] == ["m0", "m1"] and not more


def test_conversation_list_and_unread_total_query_counts(alice, bob, make_user,
                                                          django_assert_num_queries, settings):
    settings.SOCIAL_MESSAGE_RATE_NEW_ACCOUNT = 100
    for i in range(6):
        other = make_user(username=f"friend{i}")
        services.message_send(sender=other, recipient=alice, body=f"hello {i}")
        services.message_send(sender=alice, recipient=other, body=f"back {i}")
    with django_assert_num_queries(1):
        rows = list(selectors.conversation_list(alice))
        assert [r.other.username for r in rows][0] == "friend5"
        assert all(r.conversation.last_message.body.startswith("back") for r in rows)
    with django_assert_num_queries(1):
        assert selectors.unread_total(alice.pk) == 0


def test_people_search_finds_those_who_block_you_as_anybody(alice, bob, carol, make_user):
    make_user(username="bobby", display_name="Robert")
    found = [u.username for u, _ in selectors.people_search(alice, "bo")]
    assert found == ["bob", "bobby"]
    services.block_add(user=bob, target=alice)
    found = [u.username for u, _ in selectors.people_search(alice, "bo")]
    assert found == ["bob", "bobby"]  # (leaving bob out told alice of his block)
    assert [u.username for u, _ in selectors.people_search(alice, "rober")] == ["bobby"]
    assert selectors.people_search(alice, "a") == []  # too short
    assert [u.username for u, _ in selectors.people_search(alice, "ali")] == []  # not yourself
    # Alice blocking someone still shows them to her, marked as blocked.
    services.block_add(user=alice, target=carol)
    (person, rel), = selectors.people_search(alice, "car")
    assert person == carol and rel.blocking


def test_block_is_idempotent_and_self_block_refused(alice, bob):
    services.block_add(user=alice, target=bob)
    services.block_add(user=alice, target=bob)
    assert Block.objects.count() == 1
    with pytest.raises(services.SocialError):
        services.block_add(user=alice, target=alice)


def test_a_message_costs_a_fixed_number_of_queries(
    alice, bob, django_assert_max_num_queries, django_capture_on_commit_callbacks
):
    """Sending (policy, write, read markers) and delivering (both unread counts) stay a few
    indexed queries however long the history is; receivers' sockets do no database work."""
    for n in range(3):
        services.message_send(sender=alice, recipient=bob, body=f"earlier {n}")
    # A reply is the most expensive case: it also marks the conversation read for the sender
    # and tells the sender's tabs their new count.
    with django_assert_max_num_queries(10) as captured, django_capture_on_commit_callbacks(
        execute=True
    ):
        recipient = services.message_recipient(alice.pk)
        services.message_send(sender=bob, recipient=recipient, body="reply")
    sql = [q["sql"] for q in captured.captured_queries]
    assert sum("social_message" in s and s.startswith("INSERT") for s in sql) == 1
    assert selectors.unread_counts(alice.pk, Message.objects.last().conversation_id) == (1, 1)
    assert selectors.unread_counts(bob.pk, Message.objects.last().conversation_id) == (0, 0)
