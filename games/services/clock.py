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
from django.db.models import DateTimeField, Exists, F, OuterRef, QuerySet, Value
from django.db.models.functions import Greatest
from django.utils import timezone

from core.channels import Outbox
from games import engine as E

from .. import conf
from ..models import ClockOutage, Heartbeat, Seat, Table, TableStatus, grace_seconds
from .locking import after_commit

log = logging.getLogger(__name__)


def bot_delay(state: E.GameState) -> float:
    """The computer's pause before its move in ``state`` (``GAMES_BOT_DELAY``, so it seems
    to think): the whole of it before a turn's first move, half of it before the next moves
    of the same turn (its discard after its draw, Rummy's melds): with three computers at a
    table of four a person waited up to 13 s between their turns (an outside audit)."""
    low, high = conf.get("BOT_DELAY")
    if high <= 0:
        return 0.0
    if state.phase in (E.Phase.DISCARD, E.Phase.PLAY):  # (it has drawn: its turn goes on)
        low, high = low / 2, high / 2
    return random.uniform(low, high)


def set_clock(
    table: Table, seats: list[Seat], state: E.GameState | None, prev_to_act: int | None,
) -> None:
    """Who is on the clock now, and until when (a turn keeps its deadline across actions).
    A person's turn that starts before the table's ``clock_floor`` (set after an outage by
    ``give_back_batch``) runs at least until it."""
    now = timezone.now()
    to_act = state.to_act if state is not None else None
    if table.status != TableStatus.PLAYING or to_act is None:
        table.turn_deadline = None
        table.deadline_seat = None
        table.turn_started_at = None
        return
    # A hand just dealt (its history holds only the deal) starts a turn of its own, with the
    # first turn's extra: its players read the last hand's result first (the next hand's
    # clock ran while that panel was open), and the player who ended a hand and deals first
    # in the next kept the old turn's deadline.
    new_hand = (prev_to_act is not None and state is not None
                and len(state.hand_history) <= 1)
    if to_act != prev_to_act or table.turn_started_at is None or new_hand:
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
    if (to_act == prev_to_act and table.turn_deadline is not None
            and table.deadline_seat == to_act and not new_hand):
        # The same turn goes on (drew, now discards): keep the deadline, with a moment to act.
        table.turn_deadline = max(table.turn_deadline, now + timedelta(seconds=3))
        return
    extra = conf.get("FIRST_TURN_EXTRA") if prev_to_act is None or new_hand else 0
    table.turn_deadline = now + timedelta(seconds=table.seconds_per_turn + extra)
    if table.clock_floor is not None and table.clock_floor > table.turn_deadline:
        table.turn_deadline = table.clock_floor
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
        delay = bot_delay(state)
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
    seconds = _stopped(table_id, seat).values_list("seconds_per_turn", flat=True).first()
    return seconds is not None and _resume(table_id, seat, seconds) is not None


def clock_resume_read(table: Table, seat: int | None) -> bool:
    """``table_clock_resume`` for a table just read (a socket's open): the stopped clock is
    seen on the row read, so the usual case costs no statement; the UPDATE keeps the same
    conditions (a move made since the read has set a deadline: nothing is resumed). The
    instance gets the new deadline, so a snapshot built from it shows the clock running."""
    if (seat is None or table.status != TableStatus.PLAYING or table.turn_deadline is not None
            or table.deadline_seat != seat or table.seconds_per_turn <= 0):
        return False
    deadline = _resume(table.pk, seat, table.seconds_per_turn)
    if deadline is None:
        return False
    table.turn_deadline = deadline
    return True


def _stopped(table_id: int, seat: int) -> QuerySet[Table]:
    return Table.objects.filter(
        pk=table_id, status=TableStatus.PLAYING, turn_deadline__isnull=True,
        deadline_seat=seat, seconds_per_turn__gt=0,
    )


def _resume(table_id: int, seat: int, seconds: int) -> datetime | None:
    """The stopped clock of ``seat`` started with a whole turn: its new deadline, or None
    when it was not stopped (any more)."""
    deadline = timezone.now() + timedelta(seconds=seconds)
    return deadline if _stopped(table_id, seat).update(turn_deadline=deadline) else None


# ---------------------------------------------------------------- the site's own liveness
#
# Every process that watches clocks (each Daphne with open table sockets, every second, and
# the sweep, every 2 s) stamps the ``clocks`` heartbeat row. A stamp older than
# ``GAMES_OUTAGE_GAP`` means nothing could reach the database (a PostgreSQL outage, a restart
# of every process): the turns that were running get that time back. The gap is recorded as a
# pending ``ClockOutage`` under the heartbeat row's lock, and the stamp is left old until the
# give-back is done; the give-back goes through the playing tables in batches of ids
# (``GAMES_OUTAGE_BATCH``), each batch and the outage's cursor in one short transaction, so a
# move never waits behind one UPDATE of every table of the site (at 100,000 tables that one
# statement held every table's row lock for about 20 s). Every deadline check
# (``table_timeout``: a socket's timer or the sweep) first makes sure the stamp is fresh and no
# give-back is pending (``clocks_fresh``, which finishes it), so no deadline is applied before
# the time lost to the outage is given back. Race-free: batches take the outage's row lock, so
# each table is extended once whichever processes share the work; tables written after the
# gap ended (a move made meanwhile set a new deadline) are not extended.

CLOCKS = "clocks"


class Outage(TypedDict):
    """A gap in the site's liveness, given back: its length and the turns extended."""

    gap: float
    extended: int


def give_back_batch(outage: ClockOutage) -> int:
    """Give ``outage``'s time back to the next batch of playing tables (ids from its
    cursor) in the caller's transaction: every person's turn that was running then gets
    ``back`` more and runs at least until ``resume_at`` (so a move refused as
    ``unavailable`` can still be sent again); computers' turns are not extended (their
    deadline brings their move), but every table of the batch keeps ``resume_at`` as its
    ``clock_floor``: a person's turn that a move starts before then (the sweep playing the
    computer's move the stop cut short, the other person's move) runs until it too, while
    the page is still reconnecting (it had started on a plain clock: 10.8 s of a 15 s turn
    left when the page was back, an outside audit); every player's last sign of life moves
    on by as much, so nobody looks gone (and claimable) for pings the site could not take.
    Returns the number of ids looked at (0: done)."""
    ids = list(
        Table.objects.filter(status=TableStatus.PLAYING, pk__gte=outage.next_table)
        .order_by("pk").values_list("pk", flat=True)[:conf.get("OUTAGE_BATCH")]
    )
    if not ids:
        return 0
    back, since, detected = outage.back, outage.since, outage.detected_at
    Seat.objects.filter(
        table_id__in=ids, user__isnull=False, last_seen__isnull=False,
        last_seen__gt=since - timedelta(seconds=grace_seconds()), last_seen__lt=detected,
    ).update(last_seen=F("last_seen") + back)
    resume = Value(outage.resume_at, output_field=DateTimeField())
    Table.objects.filter(pk__in=ids, status=TableStatus.PLAYING).update(
        clock_floor=outage.resume_at)
    outage.extended += Table.objects.filter(
        pk__in=ids, status=TableStatus.PLAYING, turn_deadline__isnull=False,
        turn_deadline__gt=since, updated_at__lt=detected,
    ).exclude(
        Exists(Seat.objects.filter(
            table=OuterRef("pk"), index=OuterRef("deadline_seat"), bot_level__isnull=False,
        ))
    ).update(turn_deadline=Greatest(F("turn_deadline") + back, resume,
                                    output_field=DateTimeField()))
    outage.next_table = ids[-1] + 1
    outage.save(update_fields=["next_table", "extended"])
    return len(ids)


def give_back(outage_id: int) -> Outage | None:
    """Work through the pending outage ``outage_id`` batch by batch (other processes may
    share the work); when no table is left, mark it done and stamp the heartbeat fresh, in
    one transaction. Returns the outage once this call finished it, else None."""
    while True:
        with transaction.atomic():
            outage = (ClockOutage.objects.select_for_update()
                      .filter(pk=outage_id, pending=True).first())
            if outage is None:
                return None  # finished by another process
            if give_back_batch(outage):
                continue
            now = timezone.now()
            Heartbeat.objects.filter(name=CLOCKS).update(at=now)
            outage.pending, outage.done_at = False, now
            outage.save(update_fields=["pending", "done_at"])
        gap = (outage.detected_at - outage.since).total_seconds()
        log.warning("the clocks were not watched for %.1f s: %s turns got that time back "
                    "(in %.1f s)", gap, outage.extended,
                    (outage.done_at - outage.detected_at).total_seconds())
        return {"gap": gap, "extended": outage.extended}


def clocks_watched() -> Outage | None:
    """Stamp the ``clocks`` heartbeat; if the previous stamp is older than
    ``GAMES_OUTAGE_GAP``, first give the running turns that time back (at most
    ``GAMES_OUTAGE_GIVE_BACK_MAX``), or help finish a give-back already under way. Returns
    ``{"gap": seconds, "extended": turns}`` when this call finished a give-back, else None."""
    with transaction.atomic():
        Heartbeat.objects.bulk_create([Heartbeat(name=CLOCKS, at=timezone.now())],
                                      ignore_conflicts=True)
        previous = (Heartbeat.objects.select_for_update().filter(name=CLOCKS)
                    .values_list("at", flat=True).get())
        now = timezone.now()  # read under the lock: a wait for it is part of the gap
        if now <= previous:
            return None
        gap = now - previous
        if gap <= timedelta(seconds=conf.get("OUTAGE_GAP")):
            # A fresh stamp means no give-back is pending (one keeps the stamp old until done).
            Heartbeat.objects.filter(name=CLOCKS).update(at=now)
            return None
        pending = ClockOutage.objects.filter(pending=True).values_list("pk", flat=True).first()
        if pending is None:
            # At most a few minutes: after a long stop the games of then are over anyway.
            pending = ClockOutage.objects.create(
                since=previous, detected_at=now,
                back=min(gap, timedelta(seconds=conf.get("OUTAGE_GIVE_BACK_MAX"))),
                resume_at=now + timedelta(seconds=conf.get("OUTAGE_RESUME")),
            ).pk
    return give_back(pending)


def clocks_fresh() -> None:
    """Before a deadline is applied: make sure no gap in the site's liveness is still to be
    given back (a cheap read when the stamp is fresh, else ``clocks_watched``)."""
    at = Heartbeat.objects.filter(name=CLOCKS).values_list("at", flat=True).first()
    if at is None or timezone.now() - at > timedelta(seconds=conf.get("OUTAGE_GAP")):
        clocks_watched()
