"""The JSON that ratings put in front of players: the ``ratings`` part of the games app's
table frames (docs/protocol.md). Ratings never send a frame themselves: ``games`` asks
``table_ratings`` through ``games.hooks`` whenever it builds a version's ``state`` frames or
a ``snapshot``, and places the answer there, so the ratings shown at a table are as
versioned as the rest of it."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.db import connection

from core.prepared import prepared_cursor

from ..models import Rating, RatingChange
from . import skill

NEW = skill.new_rating()


def rating_entry(*, rating: int, provisional: bool, change: int | None) -> dict[str, Any]:
    """One seated player's entry: the rating, whether it is provisional, the label shown next
    to the name ("1512?") and, once the table's finished game has been rated, its change."""
    return {"rating": rating, "provisional": provisional,
            "label": skill.label(rating, provisional), "change": change}


def table_ratings(mode: str, players: Mapping[int, int],
                  game_id: int | None) -> dict[int, dict[str, Any]]:
    """``{seat: entry}`` for the seated people ``players`` (``{seat: user_id}``) of a table of
    ``mode``. For the table's finished game ``game_id``, once it has been rated, each entry is
    that game's result (the rating after it, and the change); otherwise each player's current
    rating (a new player's when they have none) and no change."""
    if mode not in skill.MODELS or not players:
        return {}
    changes: dict[int, RatingChange] = {}
    if game_id is not None:
        changes = {c.user_id: c for c in RatingChange.objects.filter(game_id=game_id).only(
            "user_id", "rating_before", "rating_after", "provisional")}
    current: dict[int, tuple[int, bool]] = {}
    missing = [u for u in players.values() if u not in changes]
    if missing:
        current = current_ratings(mode, missing)
    out = {}
    for seat, user_id in players.items():
        c = changes.get(user_id)
        if c is not None:
            out[seat] = rating_entry(rating=c.rating_after, provisional=c.provisional,
                                     change=c.rating_after - c.rating_before)
        else:
            rating, provisional = current.get(user_id, (skill.display(NEW), True))
            out[seat] = rating_entry(rating=rating, provisional=provisional, change=None)
    return out


def current_ratings(mode: str, user_ids: list[int]) -> dict[int, tuple[int, bool]]:
    """``{user_id: (rating, provisional)}`` of those who have a rating in ``mode``. Asked
    for every state frame of a move and every snapshot, so the query is written out (built
    by the ORM it cost several times its round trip: ``bench/open_service.py``)."""
    table = connection.ops.quote_name(Rating._meta.db_table)
    marks = ", ".join(["%s"] * len(user_ids))
    with prepared_cursor() as cursor:
        cursor.execute(f"SELECT user_id, rating, provisional FROM {table}"
                       f" WHERE mode = %s AND user_id IN ({marks})", [mode, *user_ids])
        return {u: (r, bool(p)) for u, r, p in cursor.fetchall()}
