"""The table sockets of a seated player: one person with two tabs at a table is there until
the last of them closes. Closing one tab marked the seat disconnected for everyone (until the
other tab's next ping, up to 10 s), and a rematch offer made from it lapsed at once ("left
the table: the offer has lapsed") while the player still sat in the other tab.

Each socket is held in the shared connection store (``core.connections``, as
``games.watchers``) under its table and user, from its open, renewed by its pings, until its
close or ``SEAT_TTL`` seconds after its last sign of life (a process that died without
closing it). A store that cannot be read or written answers as if the socket were the
player's only one: the seat is marked as before.
"""
from __future__ import annotations

import time

from core.connections import connection_store
from core.locks import CACHE_ERRORS

SEAT_TTL = 45  # seconds; a seated socket pings every 10 s
_KEY = "games:seat-sockets:{}:{}"


def hold(table_id: int, user_id: int, conn: str) -> None:
    """The socket ``conn`` of ``user_id`` holds their seat at the table (opened, or pinged)."""
    now = time.time()
    try:
        connection_store().hold(_KEY.format(table_id, user_id), conn, now + SEAT_TTL,
                                SEAT_TTL * 2, now)
    except CACHE_ERRORS:
        pass


def drop(table_id: int, user_id: int, conn: str) -> bool:
    """``conn`` closed: True when another socket of the same player at the table is still
    live (the seat stays connected)."""
    now = time.time()
    try:
        left = connection_store().drop(_KEY.format(table_id, user_id), conn, SEAT_TTL * 2, now)
    except CACHE_ERRORS:
        return False
    return any(deadline > now for other, deadline in left.items() if other != conn)
