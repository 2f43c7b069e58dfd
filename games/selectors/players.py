"""Who is in the middle of a public game with people now (an arena pairs such players only once
it is over: a second game would run its clock beside the first)."""
from __future__ import annotations

from collections.abc import Iterable

from django.db.models import Exists, OuterRef

from ..models import Seat, TableStatus


def playing_with_people(user_ids: Iterable[int]) -> set[int]:
    """Of ``user_ids``, those seated at a public game in play with another person. A game
    against the computer alone waits for nobody, and a private one is nobody else's business:
    neither counts (an arena that held back a player at a private table told everyone in it
    that they were in a game nobody could see, and when it ended)."""
    ids = [int(u) for u in user_ids]
    if not ids:
        return set()
    others = (Seat.objects.filter(table=OuterRef("table"), user__isnull=False)
              .exclude(user_id=OuterRef("user_id")))
    return set(Seat.objects.filter(user_id__in=ids, table__status=TableStatus.PLAYING,
                                   table__private=False)
               .filter(Exists(others)).values_list("user_id", flat=True))
