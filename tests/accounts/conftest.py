"""Fixtures for the account tests: a clean cache (allauth's rate limits live there) and a
private media directory per test."""
import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image

PASSWORD = "a-Strong-pass-123"


def clear_cache() -> None:
    """Forget every cached value of this site, rate-limit counters included.

    With Redis, only this site's keys (``KEY_PREFIX``) are deleted: the channel layer and
    the Celery broker may share the database.
    """
    from django.core.cache import caches
    from django.core.cache.backends.redis import RedisCache

    backend = caches["default"]
    if isinstance(backend, RedisCache):
        client = backend._cache.get_client(None, write=True)
        keys = list(client.scan_iter(match=backend.make_key("*"), count=1000))
        if keys:
            client.delete(*keys)
    else:
        backend.clear()


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


def media_files(root) -> list:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())


def image_bytes(fmt="PNG", size=(800, 400), color=(200, 30, 30), mode="RGB", **save) -> bytes:
    buffer = io.BytesIO()
    Image.new(mode, size, color).save(buffer, format=fmt, **save)
    return buffer.getvalue()


def upload(data: bytes, name="picture.png", content_type="image/png") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data, content_type=content_type)


@pytest.fixture
def user(make_user):
    return make_user(username="alice", email="alice@example.com", password=PASSWORD)


@pytest.fixture
def alice_client(client, user):
    client.force_login(user)
    return client
