"""Fixtures shared by the whole suite."""
import threading
import warnings

import pytest

from ginsite.localfiles import prepare

# The folders the settings point at (the test databases live in GINSITE_VAR_DIR).
prepare()


@pytest.fixture
def make_user(db, django_user_model):
    """Create a user with a verified primary email; returns the user."""
    from allauth.account.models import EmailAddress

    counter = {"n": 0}

    def make(username=None, password="a-Strong-pass-123", email=None, **extra):
        counter["n"] += 1
        username = username or f"player{counter['n']}"
        email = email or f"{username}@example.com"
        user = django_user_model.objects.create_user(
            username=username, email=email, password=password, **extra
        )
        EmailAddress.objects.create(user=user, email=email, verified=True, primary=True)
        return user

    return make


@pytest.fixture(autouse=True)
def fresh_channel_layer():
    """Each test (and its event loop) gets a new channel layer: the Redis layer binds its
    locks and connections to the loop that first used it, so a layer shared between two
    tests' loops fails with "bound to a different event loop" (every app's tests)."""
    from channels.layers import channel_layers

    channel_layers.backends = {}
    yield
    channel_layers.backends = {}


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """pytest-django's test database, and before it is dropped: every other session on it
    gone. A server or worker that a test stopped may still be closing its connection (then
    this waits for it); one still there after 10 s is named with this process's threads, so
    that the test that left it can be found (PostgreSQL refuses to drop a database in use)."""
    yield
    from tests.support.servers import wait_for_other_db_sessions_to_end

    with django_db_blocker.unblock():
        left = wait_for_other_db_sessions_to_end()
    if left:
        threads = ", ".join(t.name for t in threading.enumerate())
        warnings.warn(
            f"sessions still on the test database at its teardown: {left}; threads: {threads}",
            stacklevel=1,
        )
