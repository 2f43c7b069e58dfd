"""How many people watch a table, for the players' bar ("2 watching"): its spectators'
sockets, one person's tabs counted once (a signed-in spectator by their account, an anonymous
visitor by socket). A socket counts from its open to its close, and lapses ``WATCH_TTL``
seconds after its last sign of life (a process that died without closing it).

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


def _field(conn: str, user_id: int | None) -> str:
    """The socket's name in the store: who holds it, then the socket."""
    return f"{user_id or '-'}:{conn}"


def _people(fields) -> int:
    """How many people hold the sockets ``fields``: each account once, each anonymous one."""
    return len({f if f.startswith("-:") else f.partition(":")[0] for f in fields})


def watch(table_id: int, conn: str, user_id: int | None = None) -> int:
    """Count (or keep counting) the spectator's socket ``conn``, of the account ``user_id``
    (None: an anonymous visitor); the table's count after."""
    now = time.time()
    field = _field(conn, user_id)
    try:
        before = connection_store().hold(_KEY.format(table_id), field, now + WATCH_TTL,
                                         WATCH_TTL * 2, now)
    except CACHE_ERRORS:
        return 0
    return _people(before.keys() | {field})


def unwatch(table_id: int, conn: str, user_id: int | None = None) -> int:
    """``conn`` watches no more (closed, or its user sat down); the table's count after."""
    try:
        return _people(connection_store().drop(_KEY.format(table_id), _field(conn, user_id),
                                               WATCH_TTL * 2, time.time()))
    except CACHE_ERRORS:
        return 0


def watching(table_id: int) -> int:
    """How many people watch the table now."""
    now = time.time()
    try:
        [found] = connection_store().read([_KEY.format(table_id)])
    except CACHE_ERRORS:
        return 0
    return _people(f for f, deadline in found.items() if deadline > now)
