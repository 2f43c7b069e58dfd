"""Who is on the clock and until when; a computer's move queued after the commit; a clock
stopped when its frame was lost, and started again; the site's own liveness, and the time
given back after a gap in it (before any deadline is applied).
"""
from __future__ import annotations

import logging
import random
from datetime import datetime, timedelta
from typing import TypedDict

from celery import current_app
from django.db import DatabaseError, transaction
from django.db.models import DateTimeField, Exists, F, OuterRef, Value
from django.db.models.functions import Greatest
from django.utils import timezone

from core.channels import Outbox
from games import engine as E

from .. import conf
from ..models import Heartbeat, Seat, Table, TableStatus, grace_seconds
from .locking import after_commit

log = logging.getLogger(__name__)


def _bot_delay() -> float:
    low, high = conf.get("BOT_DELAY")
    return random.uniform(low, high) if high > 0 else 0.0


def set_clock(
    table: Table, seats: list[Seat], state: E.GameState | None, prev_to_act: int | None
) -> None:
    """Who is on the clock now, and until when (a turn keeps its deadline across actions)."""
    now = timezone.now()
    to_act = state.to_act if state is not None else None
    if table.status != TableStatus.PLAYING or to_act is None:
        table.turn_deadline = None
        table.deadline_seat = None
        table.turn_started_at = None
        return
    if to_act != prev_to_act or table.turn_started_at is None:
        table.turn_started_at = now
    seat = seats[to_act]
    if seat.bot_level is not None:
        # A computer's turn has a deadline too (not shown to clients): if its task is lost
        # (a killed worker, a broker outage), the sweep plays the move when it passes.
        table.turn_deadline = now + timedelta(seconds=conf.get("BOT_TURN_LIMIT"))
        table.deadline_seat = to_act
        return
    if table.seconds_per_turn == 0:
        table.turn_deadline = None
        table.deadline_seat = None
        return
    if to_act == prev_to_act and table.turn_deadline is not None and table.deadline_seat == to_act:
        # The same turn goes on (drew, now discards): keep the deadline, with a moment to act.
        table.turn_deadline = max(table.turn_deadline, now + timedelta(seconds=3))
        return
    extra = conf.get("FIRST_TURN_EXTRA") if prev_to_act is None else 0
    table.turn_deadline = now + timedelta(seconds=table.seconds_per_turn + extra)
    table.deadline_seat = to_act


def schedule_bot_move(table: Table, seats: list[Seat], state: E.GameState | None, *,
                      outbox: Outbox | None = None) -> None:
    """After commit (and, when the caller collects its frames in ``outbox``, after those are
    sent: the computer's frames must follow them): the bot's move, the task
    ``games.table_bot_move`` queued by its name
    (``games.tasks`` calls the services, never the other way round). (Turn deadlines need no
    task per turn: the seated players' connections apply them when due (``games.consumers``),
    and the periodic sweep applies those of tables nobody is connected to.)"""
    if table.status != TableStatus.PLAYING or state is None or state.to_act is None:
        return
    table_id, version = table.pk, table.version
    seat = seats[state.to_act]
    if seat.bot_level is not None:
        delay = _bot_delay()
        task = current_app.signature("games.table_bot_move", args=(table_id, version))

        def enqueue() -> None:
            try:
                task.apply_async(
                    countdown=delay,
                    retry=True, retry_policy={"max_retries": 2, "interval_start": 0.2,
                                              "interval_step": 0.5},
                )
            except Exception:  # the broker is down: the bot's deadline brings the sweep
                log.exception("could not queue the bot move of table %s", table_id)

        if outbox is not None:
            after_commit(lambda: outbox.after_sent(enqueue))
        else:
            after_commit(enqueue)


def table_state_undelivered(*, table_id: int, version: int) -> bool:
    """The frames of ``version`` could not be published (the channel layer failed): the
    player to act may not know it is their turn, so their clock stops. It starts again when
    they are shown the table (``table_clock_resume``, from their snapshot) or, if they never
    are, after the grace period (the sweep). A computer's deadline stays: it needs no frame."""
    try:
        return bool(
            Table.objects.filter(
                pk=table_id, version=version, status=TableStatus.PLAYING,
                turn_deadline__isnull=False,
            ).exclude(
                Exists(Seat.objects.filter(
                    table=OuterRef("pk"), index=OuterRef("deadline_seat"),
                    bot_level__isnull=False,
                ))
            ).update(turn_deadline=None)
        )
    except DatabaseError:
        log.exception("could not stop the clock of table %s", table_id)
        return False


def table_clock_resume(*, table_id: int, seat: int | None) -> bool:
    """The player at ``seat`` is being shown the table: if their turn's clock was stopped
    because its frame was lost, it starts now, with the whole turn."""
    if seat is None:
        return False
    stopped = Table.objects.filter(
        pk=table_id, status=TableStatus.PLAYING, turn_deadline__isnull=True,
        deadline_seat=seat, seconds_per_turn__gt=0,
    )
    seconds = stopped.values_list("seconds_per_turn", flat=True).first()
    if seconds is None:
        return False
    deadline = timezone.now() + timedelta(seconds=seconds)
    return bool(stopped.update(turn_deadline=deadline))


# ---------------------------------------------------------------- the site's own liveness
#
# Every process that watches clocks (each Daphne with open table sockets, every second, and
# the sweep, every 2 s) stamps the ``clocks`` heartbeat row. A stamp older than
# ``GAMES_OUTAGE_GAP`` means nothing could reach the database (a PostgreSQL outage, a restart
# of every process): the turns that were running get that time back, in the same transaction
# that stamps the row again. Every deadline check (``table_timeout``: a socket's timer or the
# sweep) first makes sure the stamp is fresh, so no deadline is applied before the time lost
# to the outage is given back. Race-free: the give-back and the new stamp commit together
# under the heartbeat row's lock, so a fresh stamp proves the give-back is committed.

CLOCKS = "clocks"


class Outage(TypedDict):
    """A gap in the site's liveness, given back: its length and the turns extended."""

    gap: float
    extended: int


def _give_back_time(since: datetime, back: timedelta, now: datetime) -> int:
    """The site was down since ``since``: every person's turn that was running then gets
    ``back`` more and at least ``GAMES_OUTAGE_RESUME`` seconds from ``now`` (so a move refused
    as ``unavailable`` can still be sent again), computers' turns are not extended (their
    deadline brings their move), and every player's last sign of life moves on by as much, so
    nobody looks gone (and claimable) for pings the site could not take."""
    Seat.objects.filter(
        table__status=TableStatus.PLAYING, user__isnull=False, last_seen__isnull=False,
        last_seen__gt=since - timedelta(seconds=grace_seconds()),
    ).update(last_seen=F("last_seen") + back)
    resume = Value(now + timedelta(seconds=conf.get("OUTAGE_RESUME")),
                   output_field=DateTimeField())
    return Table.objects.filter(
        status=TableStatus.PLAYING, turn_deadline__isnull=False, turn_deadline__gt=since,
    ).exclude(
        Exists(Seat.objects.filter(
            table=OuterRef("pk"), index=OuterRef("deadline_seat"), bot_level__isnull=False,
        ))
    ).update(turn_deadline=Greatest(F("turn_deadline") + back, resume,
                                    output_field=DateTimeField()))


def clocks_watched() -> Outage | None:
    """Stamp the ``clocks`` heartbeat; if the previous stamp is older than
    ``GAMES_OUTAGE_GAP``, first give the running turns that time back (at most
    ``GAMES_OUTAGE_GIVE_BACK_MAX``). Returns ``{"gap": seconds, "extended": turns}`` after a
    gap, else None."""
    with transaction.atomic():
        Heartbeat.objects.bulk_create([Heartbeat(name=CLOCKS, at=timezone.now())],
                                      ignore_conflicts=True)
        previous = (Heartbeat.objects.select_for_update().filter(name=CLOCKS)
                    .values_list("at", flat=True).get())
        now = timezone.now()  # read under the lock: a wait for it is part of the gap
        if now <= previous:
            return None
        Heartbeat.objects.filter(name=CLOCKS).update(at=now)
        gap = now - previous
        if gap <= timedelta(seconds=conf.get("OUTAGE_GAP")):
            return None
        # At most a few minutes: after a long stop the games of then are over anyway.
        back = min(gap, timedelta(seconds=conf.get("OUTAGE_GIVE_BACK_MAX")))
        extended = _give_back_time(previous, back, now)
    log.warning("the clocks were not watched for %.1f s: %s turns got that time back",
                gap.total_seconds(), extended)
    return {"gap": gap.total_seconds(), "extended": extended}


def clocks_fresh() -> None:
    """Before a deadline is applied: make sure no gap in the site's liveness is still to be
    given back (a cheap read when the stamp is fresh, else ``clocks_watched``)."""
    at = Heartbeat.objects.filter(name=CLOCKS).values_list("at", flat=True).first()
    if at is None or timezone.now() - at > timedelta(seconds=conf.get("OUTAGE_GAP")):
        clocks_watched()
