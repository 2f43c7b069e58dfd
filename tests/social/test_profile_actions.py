"""Issue 19, item 12: another player's profile offers Message, Add contact and Invite to a
table, in the state a user expects (already a contact, a request either way, a block either
way, no table to invite to), through the existing endpoints."""
from __future__ import annotations

import re

import pytest
from django.urls import reverse

from games.models import Room, Seat
from social import selectors, services
from social.models import Invitation, MessagePolicy

pytestmark = pytest.mark.django_db


def _profile(client, user) -> str:
    html = client.get(user.get_absolute_url()).content.decode()
    found = re.search(r'<div class="social-actions person-actions profile-actions".*?</div>',
                      html, re.S)
    return found.group(0) if found else ""


def _buttons(block: str) -> list[str]:
    return [re.sub(r"\s+", " ", b).strip()
            for b in re.findall(r"<(?:button|a)[^>]*>(.*?)</(?:button|a)>", block, re.S)]


def _table(user):
    from games.services import table_create

    room, _ = Room.objects.get_or_create(slug="classic",
                                         defaults={"name": "Classic Gin", "mode": "classic"})
    return table_create(user=user, room=room)


def test_a_stranger_can_message_and_add_but_not_invite(alice, bob, client_for, client):
    block = _profile(client_for(alice), bob)
    assert _buttons(block) == ["Message", "Add contact", "Block"]
    assert f'href="{reverse("social:conversation", args=["bob"])}"' in block
    # nothing for visitors or on your own profile
    assert _profile(client, bob) == ""
    assert _profile(client_for(bob), bob) == ""


def test_add_contact_from_the_profile_comes_back_to_it(alice, bob, client_for):
    c = client_for(alice)
    response = c.post(reverse("social:request_send", args=["bob"]),
                      {"next": bob.get_absolute_url()})
    assert response.status_code == 302 and response["Location"] == bob.get_absolute_url()
    assert _buttons(_profile(c, bob)) == ["Message", "Cancel request", "Block"]
    assert "Contact request sent" in _profile(c, bob)
    # bob sees the request on alice's profile and can accept it there
    assert _buttons(_profile(client_for(bob), alice)) == [
        "Message", "Accept contact request", "Decline", "Block"]


def test_a_contact_is_invited_to_your_open_table(contacts, client_for):
    alice, bob = contacts
    c = client_for(alice)
    # no open table: the button leads to the invitations page's form that opens one
    block = _profile(c, bob)
    assert "Contact" in block and "Add contact" not in block
    assert f'href="{reverse("social:invitations")}?to=bob#new-table"' in block
    table = _table(alice)
    block = _profile(c, bob)
    assert f"Invite to Classic Gin · table {table.pk}" in _buttons(block)
    response = c.post(reverse("social:invitation_send"),
                      {"to": "bob", "table": table.pk, "next": bob.get_absolute_url()})
    assert response["Location"] == bob.get_absolute_url()
    assert Invitation.objects.filter(from_user=alice, to_user=bob, table_id=table.pk).exists()
    block = _profile(c, bob)
    assert "Invited to" in block and "Cancel invitation" in _buttons(block)
    # a table bob already sits at is not offered
    Invitation.objects.all().delete()
    Seat.objects.filter(table=table, user__isnull=True).update(user=bob)
    assert f'href="{reverse("social:invitations")}?to=bob#new-table"' in _profile(c, bob)


def test_a_block_hides_the_blockers_buttons_and_tells_the_blocked_nothing(contacts, carol,
                                                                           client_for):
    alice, bob = contacts
    services.block_add(user=alice, target=carol)
    # alice blocks carol: only Unblock on carol's profile
    assert _buttons(_profile(client_for(alice), carol)) == ["Unblock"]
    # carol, blocked, sees alice's page as that of anybody who takes no messages: Add contact
    # and Block (a page with Block alone told her of the block: seen from outside)
    services.message_policy_set(user=bob, policy=MessagePolicy.NOBODY)
    block = _profile(client_for(carol), alice)
    assert _buttons(block) == _buttons(_profile(client_for(carol), bob)) == ["Add contact",
                                                                             "Block"]
    assert "You block" not in block and "blocked" not in block.lower()
    # her request "goes": kept, but alice is never shown it nor told
    request = services.contact_request_send(sender=carol, recipient=alice)
    assert request is not None and "Contact request sent" in _profile(client_for(carol), alice)
    assert not list(selectors.requests_incoming(alice))
    assert "carol" not in client_for(alice).get(reverse("social:contacts")).content.decode()
    # and she finds alice by name, as anybody would
    assert [u.username for u, _ in selectors.people_search(carol, "ali")] == ["alice"]
    services.message_policy_set(user=bob, policy=MessagePolicy.EVERYONE)
    # contacts-only messages: no Message button for a stranger, said plainly
    services.message_policy_set(user=bob, policy=MessagePolicy.CONTACTS)
    block = _profile(client_for(carol), bob)
    assert _buttons(block) == ["Add contact", "Block"]
    assert "contacts only" in block
