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


# The site's rate-limit counters: allauth's (sign-up, login, by address), the API's (per
# token and per address), the social ones (messages, requests) and the table chat's.
RATE_LIMIT_KEYS = ("allauth:rl:*", "api:rate:*", "social:rl:*", "games:chat-rate:*")


def clear_rate_limits() -> None:
    """Forget every rate-limit count, and nothing else (presence, a live server's sockets
    and locks stay). Every test starts from a fresh budget (``tests/conftest.py``): with
    Redis the counts outlive a test, and a live server's calls from 127.0.0.1 in one test
    spent the next one's budget (a revoked token's handshake answered 4429, not 4401)."""
    from fnmatch import fnmatchcase

    from django.core.cache.backends.redis import RedisCache

    backend = caches["default"]
    patterns = [backend.make_key(p) for p in RATE_LIMIT_KEYS]
    if isinstance(backend, RedisCache):
        client = backend._cache.get_client(None, write=True)
        keys = [k for p in patterns for k in client.scan_iter(match=p, count=1000)]
        if keys:
            client.delete(*keys)
        return
    store = getattr(backend, "_cache", None)  # the in-process LocMemCache
    if isinstance(store, dict):
        for key in [k for k in list(store) if any(fnmatchcase(k, p) for p in patterns)]:
            backend.delete(key.split(":", 2)[2])
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
