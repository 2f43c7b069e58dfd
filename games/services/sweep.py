"""The periodic sweep: deadlines nobody applied (after the time lost to an outage is given
back: ``clock.clocks_watched``), clocks restarted, presence, stale open tables.
"""
from __future__ import annotations

import logging
import time
from datetime import datetime, timedelta

from django.utils import timezone

from .. import conf
from ..models import Heartbeat, Table, TableStatus, grace_seconds
from .clock import clocks_watched, table_clock_resume
from .closing import tables_close_left, tables_close_waiting
from .moves import table_timeout
from .presence import tables_presence_due

log = logging.getLogger(__name__)


def _sweep_done(now: datetime) -> None:
    """Record this run of the sweep (``/healthz`` reports the worker's age from it)."""
    Heartbeat.objects.update_or_create(name="sweep", defaults={"at": now})


def tables_sweep() -> dict[str, int]:
    """Periodic: apply deadlines missed across a restart (a computer's late move is played
    then), give back time lost to an outage, restart clocks stopped by a lost frame, show
    players who left, close games against the computer their people left, and waiting tables
    whose people left the site or that waited too long. Safe to run twice (every step re-checks
    under the row lock)."""
    now = timezone.now()
    done = {"timeouts": 0, "presence": 0, "closed": 0, "away": 0, "extended": 0, "resumed": 0,
            "left": 0}
    _sweep_done(now)
    # The time lost to a gap in the site's liveness is given back before any deadline.
    outage = clocks_watched()
    if outage is not None:
        done["extended"] = outage["extended"]
    late = Table.objects.filter(
        status=TableStatus.PLAYING, turn_deadline__lt=now - timedelta(seconds=1)
    ).values_list("pk", flat=True)
    beat, every = time.monotonic(), conf.get("OUTAGE_GAP") / 4
    for table_id in late:
        if time.monotonic() - beat >= every:
            # The sweep is watching clocks while it works through a long list: it stamps the
            # heartbeat as the sockets do (every second with the 4 s gap), or (when nobody is
            # seated anywhere) its own pass would look like an outage to the next deadline
            # check, and every running turn would get the pass's length back.
            clocks_watched()
            beat = time.monotonic()
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
    # Seats whose player crossed the grace period since the last pass: publish so opponents
    # may claim (a bounded number a pass).
    done["presence"] = tables_presence_due(now)
    # Games against the computer that their people left (closing.py).
    done["left"] = tables_close_left(now)
    # Waiting tables whose people all left the site, or that waited too long (closing.py).
    waiting = tables_close_waiting(now)
    done["closed"], done["away"] = waiting["stale"], waiting["away"]
    return done
