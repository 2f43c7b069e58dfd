"""Closing tables: the Close button of a player's own tables (leave a waiting table, which
cancels it when nobody else is seated; resign a game in progress), the sweep's closing of
games against the computer that their people left, and the cap on waiting tables.
"""
from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from django.db import transaction
from django.db.models import Exists, OuterRef

from .. import conf, states
from ..exceptions import Forbidden, NotPlaying, TableNotFound
from ..models import Ending, Seat, Table, TableStatus
from .endings import finish_game, table_resign
from .locking import load_seats, lock_table
from .tables import table_leave

if TYPE_CHECKING:

    from accounts.models import User

log = logging.getLogger(__name__)


def table_close(*, table_id: int, user: User, resign: bool = False) -> Table:
    """A player's Close on one of their tables: a waiting table is left (and cancelled when
    nobody else is seated, ``table_leave``); a game in progress is resigned, only with
    ``resign`` (the page asks first), through the one finishing path."""
    status = Table.objects.filter(pk=table_id).values_list("status", flat=True).first()
    if status == TableStatus.OPEN:
        return table_leave(table_id=table_id, user=user)
    if status == TableStatus.PLAYING:
        if not resign:
            raise Forbidden("Confirm that you resign this game to close it.")
        return table_resign(table_id=table_id, user=user)
    if status is None:
        raise TableNotFound()
    raise NotPlaying("This table is already closed.")


def _candidates(since: datetime) -> list[int]:
    """Playing tables with a computer seat and a person last seen before ``since`` (the
    cheap first cut: normally none; each is checked under its row lock)."""
    return list(
        Seat.objects.filter(
            user__isnull=False, last_seen__lt=since, table__status=TableStatus.PLAYING,
        ).filter(
            Exists(Seat.objects.filter(table=OuterRef("table"), bot_level__isnull=False))
        ).values_list("table_id", flat=True).distinct()[:100]
    )


def tables_close_left(now: datetime) -> int:
    """Sweep step: games against the computer whose people have been away longer than
    ``GAMES_COMPUTER_TABLE_LEFT`` end as an abandonment by the person away longest (the
    finish path stores the game and its record and sends ``game_finished``, so statistics
    count it as any abandoned game). Re-checked under the row lock."""
    since = now - timedelta(seconds=conf.get("COMPUTER_TABLE_LEFT"))
    closed = 0
    for table_id in _candidates(since):
        try:
            with transaction.atomic():
                table = lock_table(table_id)
                if table.status != TableStatus.PLAYING:
                    continue
                seats = load_seats(table)
                people = [s for s in seats if s.user_id is not None]
                seen = {s.index: s.last_seen for s in people if s.last_seen is not None}
                if len(seen) < len(people) or any(at >= since for at in seen.values()):
                    continue
                gone = min(people, key=lambda s: seen[s.index])
                table.version += 1
                finish_game(table, seats, states.load(table.state), ending=Ending.ABANDONMENT,
                        loser_seat=gone.index)
                closed += 1
        except Exception:
            log.exception("closing the left table %s failed", table_id)
    return closed
