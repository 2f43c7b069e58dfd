"""The tournament row lock every write takes first, the version bump, the room of a mode."""
from __future__ import annotations

from typing import Any

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
