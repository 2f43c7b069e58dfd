"""What a table socket's open costs the database: the statements of its one worker-thread
call (``TableConsumer._open``: the session's user, then ``services.table_open``) are counted,
not timed, as ``test_move_cost.py`` counts a move's. The bounds are exact: a change that
saves a statement lowers them, one that adds a statement must say why here.

A seated player's open, on SQLite and PostgreSQL alike: the session row, the user row, the
table with its room, creator and seats (one SELECT, no lock), the seat marked connected (one
UPDATE), the user's hidden chat senders (social's blocks), the chat lines and the ratings
(leaderboards' hook): seven. A spectator's: six (no seat to mark). Before issue 22's
fourth part the open read the table four times over five thread trips (the session and
user in channels' middleware, then the access check, the presence write in a transaction,
the clock resume and the snapshot): seventeen statements for a seated player (BEGIN and
COMMIT included), nine for a spectator.
"""
from __future__ import annotations

import importlib

import pytest
from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from core.channels import Outbox
from core.sockets import UnresolvedUser, resolve_user
from games.consumers import TableConsumer
from games.models import Seat
from tests.support.tables import start_table

SEATED_OPEN_STATEMENTS = 7
SPECTATOR_OPEN_STATEMENTS = 6


def _scope(client: Client, table_id: int, invite: str = "") -> dict:
    """A handshake's scope as channels' session middleware and ``SessionUserMiddleware``
    leave it: the session not read yet, the user unresolved."""
    store = importlib.import_module(settings.SESSION_ENGINE).SessionStore
    key = client.cookies["sessionid"].value if "sessionid" in client.cookies else None
    return {"session": store(key), "user": UnresolvedUser(),
            "url_route": {"kwargs": {"table_id": table_id}},
            "query_string": f"invite={invite}".encode() if invite else b""}


def _open(scope: dict, table_id: int, invite: str = ""):
    consumer = TableConsumer()
    consumer.scope, consumer.table_id, consumer.invite = scope, table_id, invite
    consumer.channel_name = "test.open!1"  # (a seated socket is held by its name: seat_sockets)
    outbox = Outbox()
    with CaptureQueriesContext(connection) as ctx:
        user, opened = consumer._open(outbox)
    return user, opened, outbox.take(), [q["sql"] for q in ctx.captured_queries]


def _logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.mark.django_db(transaction=True)
def test_a_seated_players_open(rooms, two_players, make_user):
    alice, bob = two_players
    table = start_table(rooms["classic"], [alice, bob], seconds=30)
    Seat.objects.filter(table=table).update(connected=False)
    user, opened, sent, sql = _open(_scope(_logged_in(alice), table.pk), table.pk)
    assert len(sql) <= SEATED_OPEN_STATEMENTS, "\n".join(sql)
    assert user == alice and opened.allowed and opened.seat == 0
    assert opened.snapshot["type"] == "snapshot" and opened.snapshot["version"] == table.version
    assert opened.snapshot["you"] == {**opened.snapshot["you"], "seat": 0, "role": "player"}
    assert opened.snapshot["view"]["hand"], "the player's own hand is in the snapshot"
    assert opened.snapshot["seats"][0]["connected"] is True
    assert Seat.objects.get(table=table, index=0).connected  # written, not only shown
    assert [m["type"] for _group, m in sent] == ["table.presence"]  # after the commit


@pytest.mark.django_db(transaction=True)
def test_a_spectators_open(rooms, two_players, make_user):
    table = start_table(rooms["classic"], list(two_players), seconds=30)
    carol = make_user("carol")
    user, opened, sent, sql = _open(_scope(_logged_in(carol), table.pk), table.pk)
    assert len(sql) <= SPECTATOR_OPEN_STATEMENTS, "\n".join(sql)
    assert user == carol and opened.allowed and opened.seat is None
    assert opened.snapshot["you"]["role"] == "spectator"
    assert "hand" not in (opened.snapshot["view"] or {}) or not opened.snapshot["view"]["hand"]
    assert sent == []


@pytest.mark.django_db(transaction=True)
def test_a_logged_out_session_opens_as_nobody(rooms, two_players):
    """The user is read from the session in the open's own call: a session logged out since
    (its row deleted) is anonymous there, and a private table refuses it."""
    alice, bob = two_players
    table = start_table(rooms["classic"], [alice, bob], seconds=30)
    table.private = True
    table.save(update_fields=["private"])
    client = _logged_in(alice)
    scope = _scope(client, table.pk)
    client.logout()
    user, opened, sent, _sql = _open(scope, table.pk)
    assert isinstance(user, AnonymousUser)
    assert opened is not None and not opened.allowed and opened.snapshot is None
    assert sent == []


@pytest.mark.django_db(transaction=True)
def test_a_changed_password_ends_the_sessions_sockets(rooms, two_players):
    alice, bob = two_players
    table = start_table(rooms["classic"], [alice, bob], seconds=30)
    scope = _scope(_logged_in(alice), table.pk)
    alice.set_password("a new one, long enough")
    alice.save()
    assert isinstance(resolve_user(scope), AnonymousUser)


def test_a_user_given_by_the_handshake_is_kept():
    """A bot's token handshake puts its user in the scope: nothing to resolve."""
    user = object()
    assert resolve_user({"user": user}) is user


@pytest.mark.django_db(transaction=True)
def test_nothing_is_read_before_the_open_resolves_the_user(rooms, two_players):
    scope = _scope(_logged_in(two_players[0]), 1)
    with pytest.raises(ValueError):
        _ = scope["user"].is_authenticated


@pytest.mark.django_db(transaction=True)
def test_an_inactive_or_deleted_user_is_nobody(rooms, two_players):
    """The written-out user read keeps the backend's refusals."""
    alice, bob = two_players
    scope_a, scope_b = _scope(_logged_in(alice), 1), _scope(_logged_in(bob), 1)
    alice.is_active = False
    alice.save(update_fields=["is_active"])
    bob.delete()
    assert isinstance(resolve_user(scope_a), AnonymousUser)
    assert isinstance(resolve_user(scope_b), AnonymousUser)


@pytest.mark.django_db(transaction=True)
def test_an_expired_or_forged_session_is_nobody(rooms, two_players):
    from django.contrib.sessions.models import Session
    from django.utils import timezone

    client = _logged_in(two_players[0])
    Session.objects.filter(session_key=client.cookies["sessionid"].value).update(
        expire_date=timezone.now())
    assert isinstance(resolve_user(_scope(client, 1)), AnonymousUser)
    forged = _scope(_logged_in(two_players[1]), 1)
    forged["session"] = type(forged["session"])("x" * 32)  # a key that was never issued
    assert isinstance(resolve_user(forged), AnonymousUser)
    assert resolve_user(_scope(_logged_in(two_players[1]), 1)) == two_players[1]
