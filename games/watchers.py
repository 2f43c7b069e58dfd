"""How many people watch a table: its spectators' sockets, counted for the players' bar
("2 watching"). A socket counts from its open to its close, and lapses ``WATCH_TTL`` seconds
after its last sign of life (a process that died without closing it).

Every Daphne process shares the count: a table's spectators are a holder in the shared
connection store (``core.connections``: a Redis hash with ``REDIS_URL``, else the embedded
default's cache, which one Daphne process writes and the workers only read, for the presence
frames they publish). A count that cannot be read is 0: nobody is told of watchers then,
nothing fails.
"""
from __future__ import annotations

import time

from core.connections import connection_store
from core.locks import CACHE_ERRORS

WATCH_TTL = 60  # seconds; a spectator's socket pings every 10 to 25 s
_KEY = "games:watchers:{}"


def watch(table_id: int, conn: str) -> int:
    """Count (or keep counting) the spectator's socket ``conn``; the table's count after."""
    now = time.time()
    try:
        before = connection_store().hold(_KEY.format(table_id), conn, now + WATCH_TTL,
                                         WATCH_TTL * 2, now)
    except CACHE_ERRORS:
        return 0
    return len(before.keys() | {conn})


def unwatch(table_id: int, conn: str) -> int:
    """``conn`` watches no more (closed, or its user sat down); the table's count after."""
    try:
        return len(connection_store().drop(_KEY.format(table_id), conn, WATCH_TTL * 2,
                                           time.time()))
    except CACHE_ERRORS:
        return 0


def watching(table_id: int) -> int:
    """How many spectators' sockets watch the table now."""
    now = time.time()
    try:
        [found] = connection_store().read([_KEY.format(table_id)])
    except CACHE_ERRORS:
        return 0
    return sum(deadline > now for deadline in found.values())
