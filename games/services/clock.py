"""Who is on the clock and until when; a computer's move queued after the commit; a clock
stopped when its frame was lost, and started again.
"""
from __future__ import annotations

import logging
import random
from datetime import timedelta

from celery import current_app
from django.db import DatabaseError
from django.db.models import Exists, OuterRef
from django.utils import timezone

from .. import conf
from ..models import Seat, Table, TableStatus
from .locking import _on_commit

log = logging.getLogger(__name__)


def _bot_delay() -> float:
    low, high = conf.get("BOT_DELAY")
    return random.uniform(low, high) if high > 0 else 0.0


def _set_clock(table: Table, seats: list[Seat], state, prev_to_act: int | None) -> None:
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


def _schedule(table: Table, seats: list[Seat], state) -> None:
    """After commit: the bot's move, the task ``games.table_bot_move`` queued by its name
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

        def enqueue():
            try:
                task.apply_async(
                    countdown=delay,
                    retry=True, retry_policy={"max_retries": 2, "interval_start": 0.2,
                                              "interval_step": 0.5},
                )
            except Exception:  # the broker is down: the bot's deadline brings the sweep
                log.exception("could not queue the bot move of table %s", table_id)

        _on_commit(enqueue)


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
