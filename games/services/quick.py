"""Play now: a seat at the first waiting table of a room that fits what the player asked for
(rated or casual, time per turn, players), or a new table with those settings when none does.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from games import engine as E

from .. import hooks
from ..exceptions import Forbidden, GameServiceError, SeatRefused
from ..models import Room, Table, TableStatus
from .tables import table_create, table_sit

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser

    from accounts.models import User

DEFAULT_SECONDS = 30


def table_quick(*, user: User | AnonymousUser | None, room: Room, rated: bool | None = None,
                seconds_per_turn: int | None = None,
                seat_count: int | None = None) -> tuple[Table, bool]:
    """Seat ``user`` at the oldest waiting public table of ``room`` that fits (None: any) and
    admits them, or open one with those settings (casual, 30 s and the fewest players when
    not given): their own waiting table that fits, if they have one. Returns ``(table,
    joined)``: False when the table is theirs. A table taken, or refusing the player,
    meanwhile is passed over for the next; what refuses a new table too (a playban, too many
    waiting tables) is raised."""
    if user is None or not user.is_authenticated:
        raise Forbidden("Log in to play.")
    busy = hooks.busy_refusal(user)  # (refused at every table: said once, none tried)
    if busy:
        raise SeatRefused(busy)
    fits = {"rated": rated, "seconds_per_turn": seconds_per_turn, "seat_count": seat_count}
    open_tables = Table.objects.filter(room=room, private=False, status=TableStatus.OPEN,
                                       **{k: v for k, v in fits.items() if v is not None})
    # (not at a table of someone a block joins them to: table_sit refuses it)
    waiting = list(open_tables.exclude(seats__user=user).exclude(
        seats__user__in=hooks.hidden_senders(user)).order_by("created_at")[:20])
    ranges = hooks.seat_ranges(waiting, user)
    for table in waiting:
        if ranges.get(table.pk, {}).get("fits") is False:
            continue
        try:
            return table_sit(table_id=table.pk, user=user), True
        except GameServiceError:
            continue  # taken meanwhile, or not for this player: the next one
    # a second press while the player's own table waits: that table, not one more
    own = open_tables.filter(seats__user=user).order_by("created_at").first()
    if own is not None:
        return own, False
    return table_create(
        user=user, room=room, rated=bool(rated),
        seconds_per_turn=seconds_per_turn or DEFAULT_SECONDS,
        seat_count=seat_count or max(room.min_seats, E.get_mode(room.mode).min_players)), False
