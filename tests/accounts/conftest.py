"""Fixtures for the account tests: a clean cache (allauth's rate limits live there) and a
private media directory per test."""
import pytest

from tests.support.accounts import PASSWORD, clear_cache


@pytest.fixture(autouse=True)
def fresh_cache():
    clear_cache()
    yield
    clear_cache()


@pytest.fixture
def media_root(settings, tmp_path):
    """MEDIA_ROOT in a temporary directory, so a test sees exactly the files it wrote."""
    root = tmp_path / "media"
    root.mkdir()
    settings.MEDIA_ROOT = root
    return root


@pytest.fixture
def user(make_user):
    return make_user(username="alice", email="alice@example.com", password=PASSWORD)


@pytest.fixture
def alice_client(client, user):
    client.force_login(user)
    return client
