"""Open sockets with a deadline, shared by every server process: the store under social's
presence (a user's notification sockets) and the games' watchers (a table's spectators).

A *holder* (a user, a table) keeps its sockets as ``conn -> deadline`` (a Unix time): a socket
counts while its deadline is in the future, so one whose close never ran (a crashed process, a
phone gone to sleep) lapses by itself. Beside them, an *index* is a set of holders (presence
keeps the users it may have to announce offline).

With ``REDIS_URL`` each holder is a Redis hash and each change one MULTI, so two processes
opening or closing sockets at once agree on what was there before and what is left. Without
Redis (the embedded default: one Daphne process writes, its workers read) the same operations
run on Django's cache under a process lock. The callers catch ``core.locks.CACHE_ERRORS``.
"""
from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from django.core.cache import cache

from core.cache import redis_backend


def entries(deadlines: Mapping[Any, Any]) -> dict[str, float]:
    """``deadlines`` as read (Redis gives bytes): names as text, deadlines as floats."""
    return {(k.decode() if isinstance(k, bytes) else k): float(v) for k, v in deadlines.items()}


def live(deadlines: Mapping[Any, Any], now: float) -> dict[str, float]:
    """Those of ``deadlines`` still open at ``now``."""
    return {k: v for k, v in entries(deadlines).items() if v > now}


class ConnectionStore(Protocol):
    def hold(self, key: str, conn: str, deadline: float, ttl: int,
             now: float) -> dict[str, float]:
        """Open ``conn`` (or push its deadline on); the holder's live sockets *before*. The
        holder is forgotten ``ttl`` seconds after its last change."""

    def drop(self, key: str, conn: str, ttl: int, now: float) -> dict[str, float]:
        """Close ``conn``; the holder's live sockets *after*."""

    def read(self, keys: list[str]) -> list[dict[str, float]]:
        """The sockets of each holder in ``keys``, lapsed ones included (presence dates a
        lapsed user's "last seen" by them): one round trip."""

    def index_add(self, key: str, member: int) -> None: ...

    def index_remove(self, key: str, member: int) -> None: ...

    def index_members(self, key: str) -> list[int]: ...

    def index_any(self, key: str) -> bool: ...


class RedisConnections:
    """A Redis hash per holder and a Redis set per index."""

    def __init__(self, backend: Any) -> None:
        self.backend = backend

    def _key(self, raw: str) -> str:
        return str(self.backend.make_and_validate_key(raw))

    def _client(self) -> Any:
        return self.backend._cache.get_client(write=True)  # the primary: read what was written

    def hold(self, key: str, conn: str, deadline: float, ttl: int,
             now: float) -> dict[str, float]:
        key = self._key(key)
        pipe = self._client().pipeline(transaction=True)
        pipe.hgetall(key)
        pipe.hset(key, conn, deadline)
        pipe.expire(key, ttl)
        return live(pipe.execute()[0], now)

    def drop(self, key: str, conn: str, ttl: int, now: float) -> dict[str, float]:
        key = self._key(key)
        pipe = self._client().pipeline(transaction=True)
        pipe.hdel(key, conn)
        pipe.hgetall(key)
        return live(pipe.execute()[1], now)

    def read(self, keys: list[str]) -> list[dict[str, float]]:
        pipe = self._client().pipeline(transaction=False)
        for key in keys:
            pipe.hgetall(self._key(key))
        return [entries(found) for found in pipe.execute()]

    def index_add(self, key: str, member: int) -> None:
        self._client().sadd(self._key(key), member)

    def index_remove(self, key: str, member: int) -> None:
        self._client().srem(self._key(key), member)

    def index_members(self, key: str) -> list[int]:
        return [int(m) for m in self._client().smembers(self._key(key))]

    def index_any(self, key: str) -> bool:
        return bool(self._client().scard(self._key(key)))


class LocalConnections:
    """The same operations on any Django cache, serialised by a process lock (one process
    writes there: the embedded default's Daphne)."""

    _lock = threading.Lock()

    def hold(self, key: str, conn: str, deadline: float, ttl: int,
             now: float) -> dict[str, float]:
        with self._lock:
            before = live(cache.get(key) or {}, now)
            cache.set(key, {**before, conn: deadline}, ttl)
        return before

    def drop(self, key: str, conn: str, ttl: int, now: float) -> dict[str, float]:
        with self._lock:
            after = live(cache.get(key) or {}, now)
            after.pop(conn, None)
            if after:
                cache.set(key, after, ttl)
            else:
                cache.delete(key)
        return after

    def read(self, keys: list[str]) -> list[dict[str, float]]:
        found = cache.get_many(keys)
        return [entries(found.get(key) or {}) for key in keys]

    def _change_index(self, key: str, change: Callable[[set[int]], None]) -> None:
        with self._lock:
            index = cache.get(key) or set()
            change(index)
            cache.set(key, index, None)

    def index_add(self, key: str, member: int) -> None:
        self._change_index(key, lambda index: index.add(member))

    def index_remove(self, key: str, member: int) -> None:
        self._change_index(key, lambda index: index.discard(member))

    def index_members(self, key: str) -> list[int]:
        return sorted(cache.get(key) or set())

    def index_any(self, key: str) -> bool:
        return bool(cache.get(key))


def connection_store() -> ConnectionStore:
    """Redis's store when the cache is Redis, else the cache's under a process lock."""
    backend = redis_backend()
    return RedisConnections(backend) if backend is not None else LocalConnections()
