"""Fixtures of the social tests: users, logged-in clients, a clean social cache."""
import time
from types import SimpleNamespace

import pytest
from asgiref.sync import sync_to_async
from django.db import connections

from tests.support.accounts import clear_social_cache


@pytest.fixture(autouse=True)
def social_cache():
    clear_social_cache()
    yield
    clear_social_cache()


@pytest.fixture(autouse=True)
def steady_rate_window(monkeypatch):
    """The social rate limits count in fixed windows of the clock (``policy.rate_limit``: a
    minute): a test that hit a limit twice across a minute's turn saw the second attempt
    allowed (CI's PostgreSQL pass, once). The policy's clock stands still in the middle of a
    window for each test; no other clock is touched."""
    from social import policy

    now = (time.time() // 60) * 60 + 30
    monkeypatch.setattr(policy, "time", SimpleNamespace(time=lambda: now))


@pytest.fixture
def users(make_user):
    """alice, bob and carol (the third user), old enough for the normal message rate."""
    from datetime import timedelta

    from django.utils import timezone

    old = timezone.now() - timedelta(days=30)
    return {
        name: make_user(username=name, display_name=name.title(), date_joined=old)
        for name in ("alice", "bob", "carol")
    }


@pytest.fixture
def alice(users):
    return users["alice"]


@pytest.fixture
def bob(users):
    return users["bob"]


@pytest.fixture
def carol(users):
    return users["carol"]


@pytest.fixture
def client_for(client):
    """A fresh Django test client logged in as the given user."""
    from django.test import Client

    def make(user):
        c = Client()
        c.force_login(user)
        return c

    return make


@pytest.fixture
def contacts(alice, bob):
    """Make alice and bob contacts."""
    from social import services

    services.contact_request_send(sender=alice, recipient=bob)
    req = bob.contact_requests_received.get()
    services.contact_request_accept(user=bob, request_id=req.pk)
    return alice, bob


@pytest.fixture
async def close_worker_thread_connections():
    """Close the database connections opened in the sync worker thread, so PostgreSQL can
    drop the test database at the end (the socket tests use it)."""
    yield
    await sync_to_async(connections.close_all)()
