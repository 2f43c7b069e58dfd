"""Closing tables: the Close button of a player's own tables (leave a waiting table, which
cancels it when nobody else is seated; resign a game in progress), the sweep's closing of
games against the computer that their people left and of waiting tables that nobody can be
called to (their people gone from the site) or that waited too long, and the cap on waiting
tables.
"""
from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from django.db import transaction
from django.db.models import Exists, OuterRef

from .. import conf, hooks, states
from ..exceptions import Forbidden, NotPlaying, TableNotFound
from ..models import Ending, Seat, Table, TableStatus
from .endings import finish_game, table_resign
from .locking import load_seats, lock_table, may_know_of
from .tables import table_leave
from .vacating import vacate_seats

if TYPE_CHECKING:

    from accounts.models import User

log = logging.getLogger(__name__)


def table_close(*, table_id: int, user: User, resign: bool = False) -> Table:
    """A player's Close on one of their tables: a waiting table is left (and cancelled when
    nobody else is seated, ``table_leave``); a game in progress is resigned, only with
    ``resign`` (the page asks first), through the one finishing path."""
    table = Table.objects.filter(pk=table_id).only(
        "status", "private", "created_by_id", "invite_token").first()
    status = table.status if table is not None and may_know_of(table, user) else None
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


# ------------------------------------------------------------------------ waiting tables


def tables_close_waiting(now: datetime) -> dict[str, int]:
    """Sweep step: close the waiting tables nobody will come back to.

    - ``away``: every person seated has been gone for ``GAMES_OPEN_TABLE_AWAY`` seconds: not
      at the table (no ping from its page) and not on the site either (``hooks.reachable``:
      no page of the site open that the start could call them from). A newcomer who sat
      there would start a game against an empty chair and wait out its clock.
    - ``stale``: nothing happened at it for ``GAMES_OPEN_TABLE_TTL`` seconds.

    A cheap cut first (normally nothing), then each table re-checked under its row lock."""
    away_since = now - timedelta(seconds=conf.get("OPEN_TABLE_AWAY"))
    stale_since = now - timedelta(seconds=conf.get("OPEN_TABLE_TTL"))
    seen_lately = Seat.objects.filter(table=OuterRef("pk"), user__isnull=False,
                                      last_seen__gte=away_since)
    # (a random few hundred a pass: tables kept for people still on the site must not hide
    # the others from every pass)
    quiet = list(Table.objects.filter(status=TableStatus.OPEN, updated_at__lt=away_since)
                 .exclude(Exists(seen_lately)).order_by("?").values_list("pk", flat=True)[:200])
    stale = set(Table.objects.filter(status=TableStatus.OPEN, updated_at__lt=stale_since)
                .values_list("pk", flat=True)[:100])
    people: dict[int, set[int]] = {}
    for table_id, user_id in Seat.objects.filter(
            table_id__in=quiet, user__isnull=False).values_list("table_id", "user_id"):
        people.setdefault(table_id, set()).add(user_id)
    reachable = hooks.reachable({u for ids in people.values() for u in ids})
    away = {t for t in quiet if not people.get(t, set()) & reachable}
    done = {"away": 0, "stale": 0}
    for table_id in sorted(away | stale):
        try:
            with transaction.atomic():
                table = lock_table(table_id)
                if table.status != TableStatus.OPEN:
                    continue
                seats = load_seats(table)
                if table.updated_at < stale_since:
                    kind = "stale"
                elif (table_id in away and table.updated_at < away_since
                      and not any(s.user_id is not None and s.last_seen is not None
                                  and s.last_seen >= away_since for s in seats)):
                    kind = "away"
                else:
                    continue
                vacate_seats(table, seats, [s for s in seats if s.user_id is not None])
                done[kind] += 1
        except Exception:
            log.exception("closing the waiting table %s failed", table_id)
    return done
