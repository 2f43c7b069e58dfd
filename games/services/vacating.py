"""People leaving a waiting table's seats: a player's Leave, the sweep's closing of a table
nobody will come back to, and the people long gone from a table whose last seat is taken."""
from __future__ import annotations

from collections.abc import Iterable
from datetime import timedelta
from functools import partial

from django.utils import timezone

from core.channels import Outbox

from .. import conf, hooks, signals
from ..models import Seat, Table, TableStatus
from .locking import after_commit
from .publish import save_and_publish


def away_from_table(seats: list[Seat], *, exclude: int | None = None) -> list[Seat]:
    """The seats of a waiting table whose people have gone: not at the table (its page
    closed) for ``GAMES_DISCONNECT_GRACE`` seconds and on no page of the site either
    (``hooks.reachable``), so that no start could call them back. A person who sat at a
    table of three whose two others had gone started a game against empty chairs, and waited
    out their clocks to be told they "left the table more than a minute ago"."""
    since = timezone.now() - timedelta(seconds=conf.get("DISCONNECT_GRACE"))
    quiet = [s for s in seats if s.user_id is not None and s.user_id != exclude
             and not s.connected and (s.last_seen is None or s.last_seen < since)]
    if not quiet:
        return []
    here = hooks.reachable(s.user_id for s in quiet if s.user_id is not None)
    return [s for s in quiet if s.user_id not in here]


def clear_seats(table: Table, leaving: Iterable[Seat]) -> None:
    """Empty the seats of ``leaving`` at the locked waiting ``table`` (the caller publishes
    the table's new version); ``player_left`` goes out for each after the commit."""
    for seat in leaving:
        user_id = seat.user_id
        seat.user = None
        seat.connected = False
        seat.last_seen = None
        seat.save(update_fields=["user", "connected", "last_seen"])
        # (one after-commit each: a failing one spares the others)
        after_commit(partial(signals.player_left.send, sender=Table, table_id=table.pk,
                             user_id=user_id))


def vacate_seats(table: Table, seats: list[Seat], leaving: Iterable[Seat], *,
                 outbox: Outbox | None = None) -> None:
    """The people of ``leaving`` leave the locked waiting ``table`` (of ``seats``): their seats
    are emptied, the table is abandoned when nobody is left, a new version is published, and
    ``player_left`` goes out for each after the commit. A player's Leave, and the sweep's
    closing of a waiting table nobody will come back to."""
    clear_seats(table, leaving)
    table.version += 1
    if not any(s.user_id for s in seats):
        table.status = TableStatus.ABANDONED
        table.finished_at = timezone.now()
    save_and_publish(table, seats, outbox=outbox)
