"""The periodic sweep: deadlines nobody applied, time given back after an outage, clocks
restarted, presence, stale open tables.
"""
from __future__ import annotations

import logging
from datetime import timedelta

from django.db import transaction
from django.db.models import Exists, F, OuterRef
from django.utils import timezone

from .. import conf
from ..models import Heartbeat, Seat, Table, TableStatus, grace_seconds
from .clock import table_clock_resume
from .closing import tables_close_left
from .locking import _lock, _seats
from .moves import table_timeout
from .presence import table_presence_publish
from .publish import save_and_publish

log = logging.getLogger(__name__)


def _sweep_gap(now) -> timedelta | None:
    """Record this run of the sweep; return how long the clocks went unwatched when the
    previous run is older than ``GAMES_OUTAGE_GAP`` (the database, the broker or every worker
    was down), else None."""
    previous = Heartbeat.objects.filter(name="sweep").values_list("at", flat=True).first()
    Heartbeat.objects.update_or_create(name="sweep", defaults={"at": now})
    if previous is None:
        return None
    gap = now - previous
    return gap if gap > timedelta(seconds=conf.get("OUTAGE_GAP")) else None


def _give_back_time(since, gap: timedelta) -> int:
    """The site was down for ``gap``: every person's turn that was running then gets that
    time back, so nobody's clock runs out because of the site (computers' turns are not
    extended: their deadline brings their move), and every player's last sign of life moves
    on by as much, so nobody looks gone (and claimable) for pings the site could not take."""
    Seat.objects.filter(
        table__status=TableStatus.PLAYING, user__isnull=False, last_seen__isnull=False,
        last_seen__gt=since - timedelta(seconds=grace_seconds()),
    ).update(last_seen=F("last_seen") + gap)
    return Table.objects.filter(
        status=TableStatus.PLAYING, turn_deadline__isnull=False, turn_deadline__gt=since,
    ).exclude(
        Exists(Seat.objects.filter(
            table=OuterRef("pk"), index=OuterRef("deadline_seat"), bot_level__isnull=False,
        ))
    ).update(turn_deadline=F("turn_deadline") + gap)


def tables_sweep() -> dict[str, int]:
    """Periodic: apply deadlines missed across a restart (a computer's late move is played
    then), give back time lost to an outage, restart clocks stopped by a lost frame, show
    players who left, close games against the computer their people left and stale open
    tables. Safe to run twice (every step re-checks
    under the row lock)."""
    now = timezone.now()
    done = {"timeouts": 0, "presence": 0, "closed": 0, "extended": 0, "resumed": 0, "left": 0}
    gap = _sweep_gap(now)
    if gap is not None:
        # At most a few minutes: after a long stop the games of then are over anyway.
        back = min(gap, timedelta(seconds=conf.get("OUTAGE_GIVE_BACK_MAX")))
        done["extended"] = _give_back_time(now - gap, back)
        log.warning("the sweep had not run for %.1f s: %s turns got that time back",
                    gap.total_seconds(), done["extended"])
    late = Table.objects.filter(
        status=TableStatus.PLAYING, turn_deadline__lt=now - timedelta(seconds=1)
    ).values_list("pk", flat=True)
    for table_id in late:
        try:
            if table_timeout(table_id=table_id):
                done["timeouts"] += 1
        except Exception:
            log.exception("timeout of table %s failed", table_id)
    grace = timedelta(seconds=grace_seconds())
    for table_id in Table.objects.filter(
        status=TableStatus.PLAYING, turn_deadline__isnull=True, deadline_seat__isnull=False,
        seconds_per_turn__gt=0, updated_at__lt=now - grace,
    ).values_list("pk", flat=True):
        # A clock stopped by a lost frame, and the player never came to see the table.
        seat = Table.objects.filter(pk=table_id).values_list("deadline_seat", flat=True).first()
        if table_clock_resume(table_id=table_id, seat=seat):
            done["resumed"] += 1
    grace = timedelta(seconds=grace_seconds())
    # Seats whose player just crossed the grace period: publish so opponents may claim.
    recent_gone = Seat.objects.filter(
        table__status=TableStatus.PLAYING, user__isnull=False,
        last_seen__lt=now - grace, last_seen__gte=now - grace - timedelta(seconds=60),
    ).values_list("table_id", flat=True).distinct()
    for table_id in recent_gone:
        table_presence_publish(table_id=table_id)
        done["presence"] += 1
    # Games against the computer that their people left (closing.py).
    done["left"] = tables_close_left(now)
    stale = now - timedelta(seconds=conf.get("OPEN_TABLE_TTL"))
    for table_id in Table.objects.filter(
        status=TableStatus.OPEN, updated_at__lt=stale
    ).values_list("pk", flat=True):
        with transaction.atomic():
            table = _lock(table_id)
            if table.status == TableStatus.OPEN and table.updated_at < stale:
                table.status = TableStatus.ABANDONED
                table.finished_at = now
                table.version += 1
                save_and_publish(table, _seats(table))
                done["closed"] += 1
    return done
