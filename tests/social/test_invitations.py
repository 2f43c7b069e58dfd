"""Invitations to a table: only contacts, only your own open table, accepting seats you."""
import re

import pytest
from asgiref.sync import sync_to_async
from django.urls import reverse

from games.models import Room, Seat
from social import policy, presence, services
from social.models import Invitation, InvitationStatus
from social.policy import Reason

JSON = {"HTTP_ACCEPT": "application/json"}


def _room():
    room, _ = Room.objects.get_or_create(
        slug="classic", defaults={"name": "Classic Gin", "mode": "classic"}
    )
    return room


def _table(user, private=True):
    from games.services import table_create

    return table_create(user=user, room=_room(), private=private)


@pytest.mark.django_db
def test_invite_a_contact_who_accepts_and_is_seated(contacts, carol, client_for):
    alice, bob = contacts
    table = _table(alice, private=True)
    invitation = services.invitation_send(sender=alice, recipient=bob, table_id=table.pk)
    assert invitation.status == InvitationStatus.PENDING
    # Sending again while pending is harmless.
    assert services.invitation_send(sender=alice, recipient=bob, table_id=table.pk) == invitation
    # Only bob may answer; only alice may cancel.
    for user, fn in [(carol, services.invitation_accept), (carol, services.invitation_decline),
                     (alice, services.invitation_accept), (bob, services.invitation_cancel),
                     (carol, services.invitation_cancel)]:
        with pytest.raises(services.NotFound):
            fn(user=user, invitation_id=invitation.pk)
    # The pages of the third user show nothing of it.
    page = client_for(carol).get(reverse("social:invitations")).content.decode()
    assert "Alice" not in page
    page = client_for(bob).get(reverse("social:invitations")).content.decode()
    assert f'data-invitation-id="{invitation.pk}"' in page
    response = client_for(carol).post(
        reverse("social:invitation_accept", args=[invitation.pk]), **JSON
    )
    assert response.status_code == 404
    # Bob accepts: seated at the private table (no invite link needed).
    response = client_for(bob).post(
        reverse("social:invitation_accept", args=[invitation.pk]), **JSON
    )
    assert response.status_code == 200, response.content
    assert response.json()["url"].endswith(f"/tables/{table.pk}/")
    assert Seat.objects.filter(table=table, user=bob).exists()
    invitation.refresh_from_db()
    assert invitation.status == InvitationStatus.ACCEPTED
    with pytest.raises(services.SocialError):
        services.invitation_decline(user=bob, invitation_id=invitation.pk)


@pytest.mark.django_db
def test_only_contacts_and_only_your_own_open_table(contacts, carol):
    alice, bob = contacts
    table = _table(alice)
    verdict = policy.can_invite(alice, carol)
    assert verdict.reason == Reason.NOT_CONTACTS
    with pytest.raises(services.PolicyDenied):
        services.invitation_send(sender=alice, recipient=carol, table_id=table.pk)
    # Bob is not seated at alice's table: he cannot invite anyone to it.
    with pytest.raises(services.NotFound):
        services.invitation_send(sender=bob, recipient=alice, table_id=table.pk)
    with pytest.raises(services.NotFound):
        services.invitation_send(sender=alice, recipient=bob, table_id=999999)
    assert not Invitation.objects.exists()


@pytest.mark.django_db
def test_blocking_cancels_and_stops_invitations_both_ways(contacts):
    alice, bob = contacts
    table = _table(alice)
    invitation = services.invitation_send(sender=alice, recipient=bob, table_id=table.pk)
    services.block_add(user=bob, target=alice)
    invitation.refresh_from_db()
    assert invitation.status == InvitationStatus.CANCELLED
    with pytest.raises(services.SocialError):
        services.invitation_accept(user=bob, invitation_id=invitation.pk)
    bob_table = _table(bob)
    for sender, recipient, tid in [(alice, bob, table.pk), (bob, alice, bob_table.pk)]:
        with pytest.raises(services.PolicyDenied) as exc:
            services.invitation_send(sender=sender, recipient=recipient, table_id=tid)
        assert exc.value.code == "not_allowed"
    assert Invitation.objects.filter(status=InvitationStatus.PENDING).count() == 0
    assert not Seat.objects.filter(table=table, user=bob).exists()


@pytest.mark.django_db
def test_full_table_closes_the_invitation(contacts, carol):
    from games.services import table_sit

    alice, bob = contacts
    table = _table(alice, private=False)
    invitation = services.invitation_send(sender=alice, recipient=bob, table_id=table.pk)
    table_sit(table_id=table.pk, user=carol)  # the last seat goes to someone else
    with pytest.raises(services.SocialError) as exc:
        services.invitation_accept(user=bob, invitation_id=invitation.pk)
    assert exc.value.code == "table_unavailable"
    invitation.refresh_from_db()
    assert invitation.status == InvitationStatus.EXPIRED


@pytest.mark.django_db
def test_invitation_rate_limit(contacts, make_user, settings):
    alice, bob = contacts
    settings.SOCIAL_INVITE_RATE = 1
    first, second = _table(alice), _table(alice)
    services.invitation_send(sender=alice, recipient=bob, table_id=first.pk)
    with pytest.raises(services.PolicyDenied) as exc:
        services.invitation_send(sender=alice, recipient=bob, table_id=second.pk)
    assert exc.value.code == "rate_limited"
    assert Invitation.objects.count() == 1


@pytest.mark.django_db
def test_invite_form_over_http(contacts, client_for):
    alice, bob = contacts
    table = _table(alice)
    c = client_for(alice)
    page = c.get(reverse("social:invitations"), {"to": "bob"}).content.decode()
    assert f'<option value="{table.pk}">' in page and 'value="bob" selected' in page
    response = c.post(reverse("social:invitation_send"), {"to": "bob", "table": str(table.pk)})
    assert response.status_code == 302
    invitation = Invitation.objects.get()
    assert c.post(reverse("social:invitation_send"), {"to": "bob", "table": "x"},
                  **JSON).status_code == 400
    # a name nobody has is a missing choice too, said on the form's page (it was a 404 page)
    for to in ("nobody", "x" * 5000):
        answer = c.post(reverse("social:invitation_send"), {"to": to, "table": str(table.pk)},
                        follow=True)
        assert answer.status_code == 200
        assert "Choose a contact and a table." in answer.content.decode()
        assert c.post(reverse("social:invitation_send"), {"to": to, "table": str(table.pk)},
                      **JSON).json()["error"]["message"] == "Choose a contact and a table."
    assert Invitation.objects.count() == 1
    response = client_for(bob).post(reverse("social:invitation_decline", args=[invitation.pk]))
    assert response.status_code == 302
    invitation.refresh_from_db()
    assert invitation.status == InvitationStatus.DECLINED


@pytest.mark.django_db
def test_sitting_down_shows_playing_to_contacts(contacts, django_capture_on_commit_callbacks):
    alice, bob = contacts
    with django_capture_on_commit_callbacks(execute=True):
        table = _table(alice, private=False)
    assert presence.presence_playing(alice.pk)["table_id"] == table.pk
    assert presence.presence_of([alice.pk])[alice.pk].state == "playing"
    from games.services import table_leave

    with django_capture_on_commit_callbacks(execute=True):
        table_leave(table_id=table.pk, user=alice)
    assert presence.presence_playing(alice.pk) is None
    # at a private table: not even "playing" (docs/social.md, "Presence")
    with django_capture_on_commit_callbacks(execute=True):
        _table(alice, private=True)
    assert presence.presence_playing(alice.pk) is None
    assert presence.presence_of([alice.pk])[alice.pk].state != "playing"


@pytest.mark.django_db(transaction=True)
async def test_invitation_arrives_live(contacts, carol):
    from tests.support.sockets import next_of, open_ready

    alice, bob = contacts
    bob_tab, _ = await open_ready(bob)
    carol_tab, _ = await open_ready(carol)
    try:
        table = await sync_to_async(_table)(alice)
        invitation = await sync_to_async(services.invitation_send)(
            sender=alice, recipient=bob, table_id=table.pk
        )
        frame = await next_of(bob_tab, "invitation")
        assert frame["event"] == "received"
        assert frame["invitation"]["id"] == invitation.pk
        assert frame["invitation"]["from"]["username"] == "alice"
        assert frame["invitation"]["table"]["url"].endswith(f"/tables/{table.pk}/")
        assert await carol_tab.receive_nothing(timeout=0.3)
    finally:
        await bob_tab.disconnect()
        await carol_tab.disconnect()
        from django.db import connections

        await sync_to_async(connections.close_all)()


NEW_TABLE = {"to": "bob", "mode": "hollywood", "seats": "2", "seconds_per_turn": "30",
             "private": "on"}


@pytest.mark.django_db
def test_invite_from_the_contact_list_with_no_table_opens_one(contacts, client_for):
    """A contact's "Invite" with no table of yours waiting: the page offers to open one, and
    one form opens it (you seated) and invites; the contact's acceptance starts the game."""
    from games.models import Table, TableStatus

    alice, bob = contacts
    c = client_for(alice)
    page = c.get(reverse("social:invitations"), {"to": "bob"}).content.decode()
    assert "You are not seated" not in page
    assert 'action="/invitations/new-table/"' in page and 'value="bob" selected' in page
    response = c.post(reverse("social:invitation_new_table"), NEW_TABLE)
    table = Table.objects.get()
    assert response.status_code == 302 and response.url == f"/tables/{table.pk}/"
    assert (table.mode, table.seat_count, table.private, table.seconds_per_turn) == (
        "hollywood", 2, True, 30)
    assert table.status == TableStatus.OPEN and table.room.mode == "hollywood"
    assert list(table.seats.values_list("user", flat=True).order_by("index")) == [alice.pk, None]
    invitation = Invitation.objects.get()
    assert (invitation.from_user, invitation.to_user, invitation.table_id) == (
        alice, bob, table.pk)
    seated = c.get(response.url).content.decode()
    assert "Invitation sent to" in seated and f"?table={table.pk}" in seated
    response = client_for(bob).post(
        reverse("social:invitation_accept", args=[invitation.pk]), **JSON)
    assert response.status_code == 200, response.content
    table.refresh_from_db()
    assert table.status == TableStatus.PLAYING


@pytest.mark.django_db
def test_the_new_table_form_sent_twice_makes_one_table(contacts, client_for):
    """The form's hidden once key (core/formonce.py): the same form sent again answers with
    the table its first sending opened."""
    from games.models import Table

    alice, _ = contacts
    c = client_for(alice)
    page = c.get(reverse("social:invitations"), {"to": "bob"}).content.decode()
    (key,) = re.findall(r'<input type="hidden" name="once" value="([\w-]+)"', page)
    url = reverse("social:invitation_new_table")
    first = c.post(url, {**NEW_TABLE, "once": key}, **JSON)
    again = c.post(url, {**NEW_TABLE, "once": key}, **JSON)
    assert first.status_code == again.status_code == 200, again.content
    assert again.json() == {"ok": True, "url": first.json()["url"], "repeated": True}
    assert Table.objects.count() == 1 and Invitation.objects.count() == 1


@pytest.mark.django_db
def test_a_new_table_for_three_at_rummy(contacts, client_for):
    from games.models import Table

    alice, _ = contacts
    response = client_for(alice).post(reverse("social:invitation_new_table"),
                                      {**NEW_TABLE, "mode": "rummy", "seats": "3"}, **JSON)
    assert response.status_code == 200, response.content
    table = Table.objects.get()
    assert (table.mode, table.seat_count, table.room.slug) == ("rummy", 3, "rummy")
    assert response.json()["url"] == f"/tables/{table.pk}/"


@pytest.mark.django_db
@pytest.mark.parametrize("change, field", [
    ({"to": "carol"}, "to"),  # not a contact
    ({"to": ""}, "to"),
    ({"mode": "poker"}, "mode"),
    ({"seats": "3"}, "seats"),  # Hollywood is for two
    ({"seats": "9"}, "seats"),
    ({"target": "20"}, "target"),
    ({"seconds_per_turn": "0"}, "seconds_per_turn"),  # untimed is for the computer
])
def test_a_bad_new_table_form_changes_nothing(contacts, carol, client_for, change, field):
    from games.models import Table

    alice, _ = contacts
    c = client_for(alice)
    response = c.post(reverse("social:invitation_new_table"), {**NEW_TABLE, **change})
    assert response.status_code == 400
    assert response.context["new_table_form"].errors[field]
    response = c.post(reverse("social:invitation_new_table"), {**NEW_TABLE, **change}, **JSON)
    assert response.status_code == 400 and field in response.json()["error"]["fields"]
    assert not Table.objects.exists() and not Invitation.objects.exists()


@pytest.mark.django_db
def test_a_refused_invitation_opens_no_table_and_a_refused_table_sends_nothing(
        contacts, client_for, settings):
    from games.models import Table

    alice, bob = contacts
    # the games app refuses (rated Hollywood is fine, a target out of range is not)
    with pytest.raises(services.SocialError) as exc:
        services.invitation_send_new_table(sender=alice, recipient=bob, mode="classic",
                                           target=1000)
    assert exc.value.code == "table_unavailable" and "between 50 and 500" in str(exc.value)
    assert not Table.objects.exists() and not Invitation.objects.exists()
    # the invitation is refused (too many a minute): no table is opened for it
    settings.SOCIAL_INVITE_RATE = 1
    services.invitation_send_new_table(sender=alice, recipient=bob, mode="classic")
    assert Table.objects.count() == 1
    with pytest.raises(services.PolicyDenied):
        services.invitation_send_new_table(sender=alice, recipient=bob, mode="straight")
    assert Table.objects.count() == 1 and Invitation.objects.count() == 1
    response = client_for(alice).post(reverse("social:invitation_new_table"),
                                      {**NEW_TABLE, "mode": "straight"})
    assert response.status_code == 429
    assert "too many" in response.content.decode().lower() or "wait" in \
        response.content.decode().lower()
    assert Table.objects.count() == 1 and Invitation.objects.count() == 1
    # blocked: no contact any more, no table
    services.block_add(user=bob, target=alice)
    settings.SOCIAL_INVITE_RATE = 100
    with pytest.raises(services.PolicyDenied):
        services.invitation_send_new_table(sender=alice, recipient=bob, mode="straight")
    assert Table.objects.count() == 1


@pytest.mark.django_db
def test_the_table_page_offers_to_invite_only_to_a_seated_player(contacts, carol, client_for):
    alice, _ = contacts
    table = _table(alice, private=False)
    link = f"/invitations/?table={table.pk}"
    assert link in client_for(alice).get(f"/tables/{table.pk}/").content.decode()
    assert link not in client_for(carol).get(f"/tables/{table.pk}/").content.decode()
    page = client_for(alice).get(link).content.decode()
    assert f'<option value="{table.pk}" selected>' in page


@pytest.mark.django_db
def test_the_home_page_shows_the_invitations_that_came_while_away(contacts, carol, client_for):
    """The live toast reaches only a player who is online: one who comes back later finds
    what they may still accept on the home page, and answers it there."""
    from datetime import timedelta

    from django.utils import timezone

    alice, bob = contacts
    table = _table(alice, private=True)
    invitation = services.invitation_send(sender=alice, recipient=bob, table_id=table.pk)
    home = client_for(bob).get("/").content.decode()
    assert f'data-invitation-id="{invitation.pk}"' in home
    assert f"?invite={table.invite_token}" in home and "Accept and sit down" in home
    for other in (alice, carol):  # the sender and anybody else: nothing
        assert "invitations-waiting" not in client_for(other).get("/").content.decode()
    # an expired one is not offered
    from social import conf

    Invitation.objects.filter(pk=invitation.pk).update(
        created_at=timezone.now() - timedelta(seconds=conf.get("INVITE_TTL") + 1))
    assert "invitations-waiting" not in client_for(bob).get("/").content.decode()
    # a fresh one is declined from the home page and leads back there
    Invitation.objects.filter(pk=invitation.pk).update(created_at=timezone.now())
    response = client_for(bob).post(
        reverse("social:invitation_decline", args=[invitation.pk]), {"next": "/"})
    assert response.status_code == 302 and response.url == "/"
    invitation.refresh_from_db()
    assert invitation.status == InvitationStatus.DECLINED
    assert "invitations-waiting" not in client_for(bob).get("/").content.decode()


@pytest.mark.django_db
def test_an_invitation_to_a_table_that_started_is_not_on_the_home_page(contacts, make_user,
                                                                      client_for):
    alice, bob = contacts
    table = _table(alice, private=False)
    services.invitation_send(sender=alice, recipient=bob, table_id=table.pk)
    assert "invitations-waiting" in client_for(bob).get("/").content.decode()
    from games.services import table_sit

    table_sit(table_id=table.pk, user=make_user("dave"))  # the last seat: the game starts
    assert "invitations-waiting" not in client_for(bob).get("/").content.decode()


@pytest.mark.django_db
def test_an_invitation_to_a_table_that_left_the_wait_offers_no_accept(contacts, carol,
                                                                       client_for):
    """The page went on offering "Accept and sit down" for a table that had closed or
    filled (the accept then only removed the row): it says so, and offers to dismiss."""
    from games.services import table_leave, table_sit

    alice, bob = contacts
    closed = _table(alice, private=False)
    services.invitation_send(sender=alice, recipient=bob, table_id=closed.pk)
    table_leave(table_id=closed.pk, user=alice)  # its only player: the table closes
    page = client_for(bob).get("/invitations/").content.decode()
    assert "that table is no longer waiting for players" in page
    assert "Accept and sit down" not in page and ">Dismiss<" in page
    assert "no longer waiting for players" in client_for(alice).get(
        "/invitations/").content.decode()
    full = _table(carol, private=False)
    services.contact_request_send(sender=carol, recipient=bob)
    services.contact_request_accept(
        user=bob, request_id=bob.contact_requests_received.get(from_user=carol).pk)
    services.invitation_send(sender=carol, recipient=bob, table_id=full.pk)
    table_sit(table_id=full.pk, user=alice)
    page = client_for(bob).get("/invitations/").content.decode()
    assert page.count("Accept and sit down") == 0


@pytest.mark.django_db
def test_a_page_asked_to_invite_someone_not_a_contact_says_so(contacts, carol, client_for):
    """?to= someone who is not a contact silently chose another contact (an audit)."""
    alice, bob = contacts
    page = client_for(alice).get(reverse("social:invitations") + "?to=carol")
    text = page.content.decode()
    assert page.status_code == 200
    assert "@carol is not one of your contacts: invitations go to your contacts only." in text
    page = client_for(alice).get(reverse("social:invitations") + "?to=bob")
    assert "not one of your contacts" not in page.content.decode()
    page = client_for(alice).get(reverse("social:invitations") + "?to=" + "<b>x" * 50)
    assert "&lt;b&gt;x" in page.content.decode() and "<b>x" not in page.content.decode()
