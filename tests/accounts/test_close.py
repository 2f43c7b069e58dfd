"""Closing an account (settings, "Close account"): confirmed with the password, refused in the
middle of a game, and then nothing personal is left: no sign-in, no email, no profile, no
contacts, no seat at a waiting table, no tournament entry, no leaderboard row. The games it
finished stay whole in the opponents' records."""
from __future__ import annotations

import pytest
from allauth.account.models import EmailAddress
from django.test import Client
from django.urls import reverse

from accounts.models import ApiToken, User
from accounts.services import ClosingError, account_close
from games.models import Room, Seat, Table, TableStatus
from games.rooms import ensure_default_rooms
from leaderboards.models import LeaderboardEntry, Rating
from leaderboards.ratings import services as ratings_services
from leaderboards.tournaments.models import Entry
from social import services as social
from social.models import Block, Contact, ContactRequest, Invitation
from tests.support.accounts import PASSWORD, api_token, clear_social_cache
from tests.support.records import finished_game
from tests.support.tables import start_table
from tests.support.tournaments import create_tournament

CLOSE = reverse("accounts:close")


@pytest.fixture
def rooms(db):
    ensure_default_rooms(Room)
    return {r.slug: r for r in Room.objects.all()}


@pytest.fixture(autouse=True)
def clean_social_cache():
    clear_social_cache()
    yield
    clear_social_cache()


def test_the_page_says_what_goes_and_what_stays(alice_client, client):
    page = alice_client.get(CLOSE).content.decode()
    assert "cannot be undone" in page and "What stays" in page and "Close my account" in page
    assert 'href="/settings/close/"' in alice_client.get(reverse("accounts:edit")).content.decode()
    client.logout()
    assert client.get(CLOSE).status_code == 302  # a visitor is sent to log in


@pytest.mark.parametrize("data", [{}, {"password": "wrong"}, {"password": "x" * 5000},
                                  {"password": ["a", "b"]}])
def test_a_wrong_or_missing_password_changes_nothing(alice_client, user, data):
    response = alice_client.post(CLOSE, data)
    assert response.status_code == 400
    user.refresh_from_db()
    assert user.is_active and user.email == "alice@example.com" and user.has_usable_password()
    assert alice_client.get(reverse("accounts:edit")).status_code == 200  # still signed in


def test_closing_signs_out_and_keeps_nothing_personal(alice_client, client, user, media_root):
    EmailAddress.objects.get_or_create(user=user, email=user.email, defaults={"verified": True})
    User.objects.filter(pk=user.pk).update(display_name="Alice A.", bio="Hi", country="FR")
    api_token(user, "games:read")
    phone = Client()  # signed in on another device too
    phone.force_login(user)
    response = alice_client.post(CLOSE, {"password": PASSWORD})
    assert response.status_code == 302 and response["Location"] == "/"
    assert "Your account is closed" in alice_client.get("/").content.decode()
    assert alice_client.get(reverse("accounts:edit")).status_code == 302  # signed out
    assert phone.get(reverse("accounts:edit")).status_code == 302  # everywhere
    user.refresh_from_db()
    assert not user.is_active and not user.has_usable_password()
    assert (user.email, user.display_name, user.bio, user.country) == ("", "", "", "")
    assert not EmailAddress.objects.filter(user=user).exists()
    assert not ApiToken.objects.filter(user=user).exists()
    # nobody signs in to it again, and its name is not given to anyone else
    assert not client.login(username="alice", password=PASSWORD)
    signup = client.post(reverse("account_signup"), {
        "username": "alice", "email": "new@example.com",
        "password1": "An-other-pass-456", "password2": "An-other-pass-456"})
    assert signup.status_code == 200 and User.objects.filter(username="alice").count() == 1
    # the profile says it is closed, and shows nothing of it
    page = client.get("/u/alice/")
    assert page.status_code == 200
    assert "This account is closed" in page.content.decode()
    assert "Alice A." not in page.content.decode()
    assert client.get("/u/nobody-at-all/").status_code == 404
    with pytest.raises(ClosingError):
        account_close(user=user)  # once is enough


def test_finished_games_stay_in_the_opponents_records(user, make_user, client):
    bob = make_user("bob")
    game = finished_game([user, bob])
    account_close(user=user)
    client.force_login(bob)
    page = client.get(game.get_absolute_url())
    assert page.status_code == 200 and "alice" in page.content.decode()
    assert game.players.get(seat=0).user_id == user.pk


def test_not_in_the_middle_of_a_game(user, make_user, rooms, alice_client):
    table = start_table(rooms["classic"], [user, make_user("bob")])
    page = alice_client.get(CLOSE).content.decode()
    assert f"You are playing at Table {table.pk}: finish or resign that game first" in page
    assert 'name="password"' not in page  # nothing to confirm yet
    response = alice_client.post(CLOSE, {"password": PASSWORD})
    assert response.status_code == 400
    assert response.content.decode().count(f"Table {table.pk}") == 1  # said once
    user.refresh_from_db()
    assert user.is_active


def test_it_leaves_the_tables_where_it_waits(user, make_user, rooms):
    from games import services as games

    alone = games.table_create(user=user, room=rooms["classic"], seat_count=2,
                               seconds_per_turn=30)
    bob = make_user("bob")
    shared = games.table_create(user=bob, room=rooms["rummy-3-4"], seat_count=3,
                                seconds_per_turn=30)
    games.table_sit(table_id=shared.pk, user=user)
    account_close(user=user)
    assert Table.objects.get(pk=alone.pk).status == TableStatus.ABANDONED
    assert Table.objects.get(pk=shared.pk).status == TableStatus.OPEN
    assert not Seat.objects.filter(user=user).exists()
    assert Seat.objects.filter(table=shared, user=bob).exists()


def test_it_leaves_contacts_blocks_requests_and_invitations(user, make_user, rooms):
    from games import services as games

    bob, carol, dave, erin = (make_user(n) for n in ("bob", "carol", "dave", "erin"))
    social.contact_request_send(sender=user, recipient=bob)
    social.contact_request_accept(user=bob, request_id=ContactRequest.objects.get().pk)
    social.contact_request_send(sender=carol, recipient=user)
    social.contact_request_send(sender=user, recipient=dave)
    social.block_add(user=user, target=erin)
    social.block_add(user=dave, target=make_user("frank"))
    table = games.table_create(user=user, room=rooms["classic"], seat_count=2,
                               seconds_per_turn=30)
    social.invitation_send(sender=user, recipient=bob, table_id=table.pk)
    social.message_send(sender=bob, recipient=user, body="see you")
    account_close(user=user)
    assert not Contact.objects.filter(user=user).exists()
    assert not Contact.objects.filter(contact=user).exists()
    assert not ContactRequest.objects.filter(from_user=user).exists()
    assert not ContactRequest.objects.filter(to_user=user).exists()
    assert not Block.objects.filter(blocker=user).exists()
    assert Block.objects.filter(blocker=dave).count() == 1  # other people's blocks stay
    assert Invitation.objects.get().status == "cancelled"
    # bob still has the conversation; it left alice's inbox
    from social import selectors

    assert len(selectors.conversation_list(bob)) == 1
    assert len(selectors.conversation_list(user)) == 0


def test_it_withdraws_from_tournaments_and_leaves_the_boards(user, make_user, rooms):
    staff = make_user("organiser", is_staff=True)
    t = create_tournament(staff)
    from leaderboards.tournaments import services as tournaments

    tournaments.tournament_enter(tournament_id=t.pk, user=user)
    bob = make_user("bob")
    from django.utils import timezone

    for u, rating in ((user, 1700), (bob, 1600)):
        Rating.objects.create(user=u, mode="classic", rating=rating, provisional=False,
                              games=30, last_game_at=timezone.now())
    ratings_services.leaderboard_compute(mode="classic")
    assert LeaderboardEntry.objects.filter(user=user).exists()
    account_close(user=user)
    assert not Entry.objects.filter(user=user).exists()
    assert not LeaderboardEntry.objects.filter(user=user).exists()
    ratings_services.leaderboard_compute(mode="classic")  # the next snapshot leaves it out
    assert not LeaderboardEntry.objects.filter(user=user).exists()
    assert LeaderboardEntry.objects.filter(user=bob, period="all", rank=1).exists()


def test_the_other_side_still_reads_the_conversation_and_cannot_reply(user, make_user,
                                                                      client):
    from social.models import Message

    bob = make_user("bob")
    social.message_send(sender=user, recipient=bob, body="see you at the table")
    account_close(user=user)
    client.force_login(bob)
    inbox = client.get(reverse("social:inbox")).content.decode()
    url = reverse("social:conversation", args=["alice"])
    assert url in inbox
    page = client.get(url)
    assert page.status_code == 200
    text = page.content.decode()
    assert "see you at the table" in text and "This account is closed" in text
    assert 'name="body"' not in text  # no box to write in
    response = client.post(url, {"body": "are you there?"})
    assert response.status_code in (400, 403) and Message.objects.count() == 1
    # someone who never wrote to it finds nothing there
    client.force_login(make_user("carol"))
    assert client.get(url).status_code == 404


def test_a_waiting_table_that_starts_while_closing_holds_the_closing_back(make_user,
                                                                         monkeypatch):
    """The closing leaves the waiting tables; one whose last seat was taken in between
    (its game started) holds the closing back, as a game in play does: nothing changes."""
    from games import services as games_services
    from games.services import leaving

    ensure_default_rooms(Room)
    ann, bob = make_user("ann_closing"), make_user("bob_sits")
    table = games_services.table_create(user=ann, room=Room.objects.get(slug="classic"))
    real = leaving.table_leave

    def leave(*, table_id, user):
        games_services.table_sit(table_id=table_id, user=bob)  # just before: the game starts
        return real(table_id=table_id, user=user)

    monkeypatch.setattr(leaving, "table_leave", leave)
    with pytest.raises(ClosingError, match=f"You are playing at Table {table.pk}"):
        account_close(user=ann)
    assert User.objects.get(pk=ann.pk).is_active
