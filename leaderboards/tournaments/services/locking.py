"""The tournament row lock every write takes first, the pairing lock, the version bump, the
room of a mode."""
from __future__ import annotations

from typing import Any

from django.db import connection

from games.models import Room

from ..exceptions import NotFound, TournamentError
from ..models import Tournament


def tournament_lock(tournament_id: Any) -> Tournament:
    """The tournament, its row locked (``select_for_update``) until the transaction ends."""
    try:
        pk = int(tournament_id)
    except (TypeError, ValueError):
        raise NotFound("There is no such tournament.") from None
    t = Tournament.objects.select_for_update().filter(pk=pk).first()
    if t is None:
        raise NotFound("There is no such tournament.")
    return t


# PostgreSQL's transaction-level advisory lock of the pairings (any 64-bit number of our own).
PAIRING_LOCK = 0x67696E_7061697273  # "gin" "pairs"


def pairing_lock() -> None:
    """Until the transaction ends, no other tournament pairs or opens a match: whether a
    player is free (not in a game with people, no match waiting) is read and acted on by one
    pairing at a time. Two tournaments pairing one player at once (two workers, each under
    its own tournament's lock) both found them free, and the player had two tables with
    running clocks and lost one match as absent. Taken after the tournament's row lock; a
    transaction that locks more than one tournament locks them all first, in id order (a
    closing account's withdrawals: ``lifecycle.tournaments_leave``), so it adds no lock
    cycle. On SQLite writers are one at a time already (``transaction_mode=IMMEDIATE``):
    nothing to take. Outside a transaction it would hold nothing: refused."""
    if not connection.in_atomic_block:
        raise RuntimeError("pairing_lock() holds only inside a transaction")
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [PAIRING_LOCK])


def version_bump(t: Tournament) -> None:
    """Every change the page shows bumps the version (the live endpoint's poll)."""
    t.version += 1
    t.save()


def room_for(mode: str) -> Room:
    room = (Room.objects.filter(slug=mode, min_seats__lte=2, max_seats__gte=2).first()
            or Room.objects.filter(mode=mode, min_seats__lte=2, max_seats__gte=2)
            .order_by("-allow_rated", "order").first())
    if room is None:
        raise TournamentError("There is no room for this game.")
    return room
