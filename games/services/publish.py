"""What clients are sent after the commit: the ``state`` frames of a new version, presence
frames, ``player_seated``; ``save_and_publish``, the last step of every write; and
``table_republish``, a new version when what other apps show at a table changed.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import transaction

from core.channels import Outbox
from games import engine as E

from .. import broadcast, frames, signals, watchers
from ..models import Seat, Table, TableStatus
from .clock import schedule_bot_move, table_state_undelivered
from .locking import after_commit, load_seats, lock_table, update_table


def save_and_publish(table: Table, seats: list[Seat], state: E.GameState | None = None, *,
                     events: Sequence[E.Event] = (), last: dict[str, Any] | None = None,
                     fields: list[str] | None = None, outbox: Outbox | None = None) -> None:
    """The last step of every write that clients see: save the table (only ``fields``, if
    given), then queue for after the commit the ``state`` frames of its version (into
    ``outbox`` when the caller gave one: see ``publish_state``) and, if a computer is to
    act, its move."""
    if fields:
        update_table(table, fields)
    else:
        table.save()
    publish_state(table, seats, state, events, last, outbox=outbox)
    schedule_bot_move(table, seats, state, outbox=outbox)


def publish_state(table: Table, seats: list[Seat], state: E.GameState | None = None,
                  events: Sequence[E.Event] = (), last: dict[str, Any] | None = None, *,
                  outbox: Outbox | None = None) -> None:
    """Queue the ``state`` frames of the table's current version for after the commit:
    sent then, or put in ``outbox`` for the caller to send (a table socket, which stops the
    clock itself when they cannot be published)."""
    build = frames.table_state_frames(table, seats, state=state, events=events, last=last)
    table_id, version = table.pk, table.version

    def send() -> None:
        delivered = broadcast.send_state(table_id=table_id, version=version, frames=build(),
                                         outbox=outbox)
        if delivered is False:
            table_state_undelivered(table_id=table_id, version=version)

    after_commit(send)


def table_republish(*, table_id: int) -> int:
    """A new version of the table whose play has not changed but whose frames show something
    new that another app answers through ``games.hooks`` (the ratings of its finished game,
    once rated): the version is bumped and its ``state`` frames are published after the
    commit, so every client gets the change in order, and a client that missed it gets it
    from the next snapshot. Returns the new version; ``TableNotFound`` when there is no
    such table."""
    with transaction.atomic():
        table = lock_table(table_id)
        seats = load_seats(table)
        table.version += 1
        table.save(update_fields=["version"])
        publish_state(table, seats)
    return table.version


def publish_presence(table: Table, seats: list[Seat], *, outbox: Outbox | None = None) -> None:
    """The seats' connections, and how many watch (``games.watchers``, read when it is sent),
    to everyone at the table."""
    meta = frames.table_meta(table)
    seats_d = frames.seats_data(seats)
    table_id = table.pk
    after_commit(lambda: broadcast.send_presence(
        table_id=table_id, table=meta, seats=seats_d, watchers=watchers.watching(table_id),
        outbox=outbox))


def announce_seated(table: Table, user_id: int) -> None:
    table_id, url, private = table.pk, table.get_absolute_url(), table.private
    waiting = table.status == TableStatus.OPEN
    after_commit(
        lambda: signals.player_seated.send(
            sender=Table, table_id=table_id, user_id=user_id, url=url, private=private,
            waiting=waiting,
        )
    )


def announce_started(table: Table, seats: list[Seat], by_user_id: int) -> None:
    """After the commit, ``game_started`` for the people at ``table``: ``user_ids`` those
    other than ``by_user_id``, whose move filled its last seat; ``players`` all of them."""
    players = [s.user_id for s in seats if s.user_id is not None]
    if not players:
        return
    others = [u for u in players if u != by_user_id]
    table_id, url, mode = table.pk, table.get_absolute_url(), table.mode
    after_commit(lambda: signals.game_started.send(sender=Table, table_id=table_id,
                                                   user_ids=others, url=url, mode=mode,
                                                   players=players))
