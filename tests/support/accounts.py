"""The accounts tests' password, cache resets (the whole site's, the social keys) and image
uploads."""
from __future__ import annotations

import io

from django.core.cache import cache, caches
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


def media_files(root) -> list:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())


def image_bytes(fmt="PNG", size=(800, 400), color=(200, 30, 30), mode="RGB", **save) -> bytes:
    buffer = io.BytesIO()
    Image.new(mode, size, color).save(buffer, format=fmt, **save)
    return buffer.getvalue()


def upload(data: bytes, name="picture.png", content_type="image/png") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data, content_type=content_type)


def clear_social_cache():
    """Forget presence, rate-limit and playing keys (Redis: only ours; locmem: everything)."""
    try:
        from django.core.cache.backends.redis import RedisCache
    except ImportError:  # pragma: no cover
        RedisCache = None
    backend = caches["default"]
    if RedisCache is not None and isinstance(backend, RedisCache):
        client = backend._cache.get_client(write=True)
        pattern = backend.make_key("social:*")
        keys = list(client.scan_iter(match=pattern, count=500))
        if keys:
            client.delete(*keys)
    else:
        cache.clear()


def api_token(user, *scopes: str, name: str = "test token") -> str:
    """A new API token of ``user`` with ``scopes`` (``bot:play`` needs a bot); returns the
    secret."""
    from accounts.services import api_token_create

    return api_token_create(user=user, name=name, scopes=list(scopes))[1]


def bearer(raw_token: str) -> dict[str, str]:
    """The test client's keyword for ``Authorization: Bearer <token>``."""
    return {"HTTP_AUTHORIZATION": f"Bearer {raw_token}"}


def make_bot(user):
    """Make ``user`` a bot account (it must have no games); returns it."""
    from accounts.services import bot_account_convert

    return bot_account_convert(user=user)
