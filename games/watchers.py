"""How many people watch a table: its spectators' sockets, counted for the players' bar
("2 watching"). A socket counts from its open to its close, and lapses ``WATCH_TTL`` seconds
after its last sign of life (a process that died without closing it).

Every Daphne process shares the count: a Redis hash per table (socket -> deadline), each
change one MULTI, with ``REDIS_URL``; else the embedded default's cache, under a process lock
(one Daphne process writes it there; the workers only read it, for the presence frames they
publish). A count that cannot be read is 0: nobody is told of watchers then, nothing fails.
"""
from __future__ import annotations

import threading
import time

from django.core.cache import cache

from core.cache import redis_backend
from core.locks import CACHE_ERRORS

WATCH_TTL = 60  # seconds; a spectator's socket pings every 10 to 25 s
_KEY = "games:watchers:{}"


def _live(deadlines, now: float) -> dict[str, float]:
    return {(k.decode() if isinstance(k, bytes) else k): float(v)
            for k, v in deadlines.items() if float(v) > now}


class _RedisWatchers:
    def __init__(self, backend):
        self.backend = backend

    def _pipe(self):
        return self.backend._cache.get_client(write=True).pipeline(transaction=True)

    def _key(self, table_id: int) -> str:
        return self.backend.make_and_validate_key(_KEY.format(table_id))

    def change(self, table_id: int, conn: str, deadline: float | None, now: float) -> int:
        key = self._key(table_id)
        pipe = self._pipe()
        if deadline is None:
            pipe.hdel(key, conn)
        else:
            pipe.hset(key, conn, deadline)
            pipe.expire(key, WATCH_TTL * 2)
        pipe.hgetall(key)
        return len(_live(pipe.execute()[-1], now))

    def count(self, table_id: int, now: float) -> int:
        client = self.backend._cache.get_client(write=False)
        return len(_live(client.hgetall(self._key(table_id)), now))


class _LocalWatchers:
    _lock = threading.Lock()

    def change(self, table_id: int, conn: str, deadline: float | None, now: float) -> int:
        key = _KEY.format(table_id)
        with self._lock:
            live = _live(cache.get(key) or {}, now)
            if deadline is None:
                live.pop(conn, None)
            else:
                live[conn] = deadline
            if live:
                cache.set(key, live, WATCH_TTL * 2)
            else:
                cache.delete(key)
        return len(live)

    def count(self, table_id: int, now: float) -> int:
        return len(_live(cache.get(_KEY.format(table_id)) or {}, now))


def _store():
    backend = redis_backend()
    return _RedisWatchers(backend) if backend is not None else _LocalWatchers()


def watch(table_id: int, conn: str) -> int:
    """Count (or keep counting) the spectator's socket ``conn``; the table's count after."""
    now = time.time()
    try:
        return _store().change(table_id, conn, now + WATCH_TTL, now)
    except CACHE_ERRORS:
        return 0


def unwatch(table_id: int, conn: str) -> int:
    """``conn`` watches no more (closed, or its user sat down); the table's count after."""
    try:
        return _store().change(table_id, conn, None, time.time())
    except CACHE_ERRORS:
        return 0


def watching(table_id: int) -> int:
    """How many spectators' sockets watch the table now."""
    try:
        return _store().count(table_id, time.time())
    except CACHE_ERRORS:
        return 0
