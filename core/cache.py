"""The shared cache's two small tools: the Redis backend when the cache is Redis, and a
counter with an expiry. Used by the games' chat limit and by social's rate limits and
presence: the floor under every app (docs/architecture.md).
"""
from __future__ import annotations

import fcntl
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.core.cache import cache, caches
from django.core.cache.backends.filebased import FileBasedCache


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
    with _counting():
        # Without Redis the count is kept with the moment its window ends: the file cache
        # (the run command's) has no incr of its own, and Django's rewrote the count with the
        # default expiry of 300 s, so every hit, refused ones too, pushed the end of a 10 s
        # window 5 minutes out (a player who had sent six chat lines stayed muted for as long
        # as they kept trying).
        now = time.time()
        held = cache.get(key)
        count, until = held if _live(held, now) else (0, now + ttl)
        count += 1
        cache.set(key, [count, until], max(until - now, 0.001))
        return count


def read_count(key: str) -> int:
    """The count of ``key`` that ``count_hit`` keeps (0 once its window is over)."""
    held = cache.get(key)
    if isinstance(held, list):
        return int(held[0]) if _live(held, time.time()) else 0
    return int(held or 0)


def _live(held: Any, now: float) -> bool:
    return isinstance(held, list) and len(held) == 2 and held[1] > now


# Without Redis the cache's incr reads the count and writes it back: two requests at once
# (the web server's threads) both wrote the same count, and limits were passed by sending
# in parallel (650 calls in a minute on a token allowed 600). One count at a time: a lock
# in this process and, where the cache is files shared by the run command's processes, a
# lock on a file beside them.
_count_lock = threading.Lock()


@contextmanager
def _counting() -> Iterator[None]:
    with _count_lock:
        backend = caches["default"]
        if not isinstance(backend, FileBasedCache):
            yield
            return
        with open(os.path.join(backend._dir, "counters.lock"), "ab") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(f, fcntl.LOCK_UN)
