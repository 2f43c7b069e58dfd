"""Fixtures shared by the whole suite."""
import gc
import threading
import warnings

import pytest
from django.db.models.signals import post_migrate

from ginsite.localfiles import prepare
from tests.support.database import restore_migration_rows

# The folders the settings point at (the test databases live in GINSITE_VAR_DIR).
prepare()


@pytest.fixture(scope="session", autouse=True)
def migration_rows_after_flush():
    """The rows the data migrations made come back after each transactional test's flush
    (``tests.support.database.restore_migration_rows``)."""
    post_migrate.connect(restore_migration_rows, dispatch_uid="tests-migration-rows")
    yield
    post_migrate.disconnect(dispatch_uid="tests-migration-rows")


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


@pytest.fixture(autouse=True)
def fresh_rate_limits():
    """Each test starts with every rate-limit budget whole (``clear_rate_limits``)."""
    from tests.support.accounts import clear_rate_limits

    clear_rate_limits()


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """pytest-django's test database, and before it is dropped: every other session on it
    gone. A server or worker that a test stopped may still be closing its connection (then
    this waits for it); one still there after 10 s is named with this process's threads, so
    that the test that left it can be found (PostgreSQL refuses to drop a database in use)."""
    yield
    from tests.support.servers import wait_for_other_db_sessions_to_end

    # A socket test's consumer ran its queries in a thread of its own (asgiref's executor of
    # its ThreadSensitiveContext), gone with it; that thread's connection is closed only when
    # it is collected, and it held the second pass's database open at its drop.
    gc.collect()
    with django_db_blocker.unblock():
        left = wait_for_other_db_sessions_to_end()
    if left:
        threads = ", ".join(t.name for t in threading.enumerate())
        warnings.warn(
            f"sessions still on the test database at its teardown: {left}; threads: {threads}",
            stacklevel=1,
        )


def pytest_sessionfinish(session):
    """The worker's garbage collected before it reports its end (pytest-xdist sends
    ``workerfinished`` after every other ``pytest_sessionfinish``), and what is left frozen.
    The controller stops the worker's gateway once the last worker has reported, and execnet
    interrupts (SIGINT to itself) an execution still running 5 s later. A worker that had run
    the browser tests ended with about 1.8 million objects of garbage and a million live
    ones: the collection after the report took 3.1 s on an idle machine and 7 s under load,
    and each later full collection (one of pytest's own at its cleanup) 1.5-2.2 s more; it
    was interrupted (a KeyboardInterrupt in a gc callback; once, the whole run stopped before
    its summary). Frozen objects are never traversed again, so what runs after the report
    takes a fraction of a second."""
    gc.collect()
    gc.freeze()
