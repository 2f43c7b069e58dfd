"""The shared cache's two small tools: the Redis backend when the cache is Redis, and a
counter with an expiry. Used by the games' chat limit and by social's rate limits and
presence: the floor under every app (docs/architecture.md).
"""
from __future__ import annotations

from typing import Any

from django.core.cache import cache, caches


def redis_backend() -> Any:
    """The default cache's ``RedisCache`` backend, or None (the local-memory cache of the
    embedded default)."""
    try:
        from django.core.cache.backends.redis import RedisCache
    except ImportError:  # pragma: no cover
        return None
    backend = caches["default"]
    return backend if isinstance(backend, RedisCache) else None


def count_hit(key: str, ttl: int) -> int:
    """Add one to the counter ``key`` (created with expiry ``ttl`` seconds); returns the new
    count. Shared across processes with Redis."""
    backend = redis_backend()
    if backend is not None:  # one round trip: SET NX EX + INCR in a pipeline
        raw = backend.make_and_validate_key(key)
        pipe = backend._cache.get_client(write=True).pipeline(transaction=True)
        pipe.set(raw, 0, ex=ttl, nx=True)
        pipe.incr(raw)
        return int(pipe.execute()[1])
    cache.add(key, 0, ttl)
    try:
        return cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.set(key, 1, ttl)
        return 1
