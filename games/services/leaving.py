"""A closing account and the games app (``accounts.closing``): it may not close in the middle
of a game, and it leaves the tables where it waits for one."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..exceptions import GameServiceError
from ..models import ImportedRecord, Seat, TableStatus
from .tables import table_leave

if TYPE_CHECKING:
    from accounts.models import User


def games_in_play(user: User) -> str | None:
    """Why ``user`` cannot close their account now: the tables where their game is in play
    (finish or resign it first: leaving a game is the game's own business)."""
    ids = list(Seat.objects.filter(user=user, table__status=TableStatus.PLAYING)
               .order_by("table_id").values_list("table_id", flat=True))
    if not ids:
        return None
    tables = ", ".join(f"Table {i}" for i in ids)
    game = "that game" if len(ids) == 1 else "those games"
    return (f"You are playing at {tables}: finish or resign {game} first (Your tables, on "
            "the Play page).")


def tables_waiting_leave(user: User) -> list[int]:
    """``user`` leaves every table where they wait for a game (a table left empty closes):
    a closing account, and a tournament match starting (the waiting table would otherwise
    deal a second game while the match is played). Returns the ids of the tables left; one
    that started or closed since the read is passed over, so that the caller's work (a
    tournament's pairing) goes on."""
    ids = list(Seat.objects.filter(user=user, table__status=TableStatus.OPEN)
               .order_by("table_id").values_list("table_id", flat=True).distinct())
    left = []
    for table_id in ids:
        try:
            table_leave(table_id=table_id, user=user)
        except GameServiceError:  # started (or closed) since the read: nothing to leave
            continue
        left.append(table_id)
    return left


def games_leave(user: User) -> None:
    """A closing account: ``user`` leaves the tables where they wait for a game, and their
    imported records go with their analyses. A waiting table whose game started in between
    holds the closing back, as a game in play does (nothing is changed)."""
    from accounts.services.closing import ClosingError

    tables_waiting_leave(user)
    in_play = games_in_play(user)
    if in_play:
        raise ClosingError(in_play)
    ImportedRecord.objects.filter(owner=user).delete()
