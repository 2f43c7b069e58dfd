"""Fixtures shared by the whole suite."""
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
