"""The answers ratings give to ``games.hooks``: who may sit at a rated table, each game's
rating changes and why a game created rated changes no rating (the ratings shown at a table
are answered by ``frames``)."""
from __future__ import annotations

import math

from django.utils import timezone

from games.models import Seat

from . import selectors
from .rules import needs_moves, unrated_reason


def minutes_left(until) -> int:
    return max(1, math.ceil((until - timezone.now()).total_seconds() / 60))


def playban_message(until) -> str:
    left = minutes_left(until)
    span = f"{left} minute{'s' if left != 1 else ''}" if left < 120 else f"{round(left / 60)} hours"
    return (f"You left or timed out of rated games too often: you may play rated games again "
            f"in {span}.")


def rated_seat_refusal(table, user) -> str | None:
    """A playban bars every rated table; a table's rating range bars players rated outside
    the creator's rating ± the range (the creator, and players already at the table for a
    rematch, are never refused for the range)."""
    until = selectors.playban_until(user)
    if until is not None:
        return playban_message(until)
    width = getattr(table, "rating_range", None)
    creator = table.created_by_id
    if width is None or creator is None or creator == user.pk:
        return None
    if table.pk and Seat.objects.filter(table_id=table.pk, user_id=user.pk).exists():
        return None
    ratings = selectors.ratings_for([creator, user.pk], table.mode)
    low, high = _bounds(ratings[creator], width)
    if not low <= ratings[user.pk] <= high:
        return (f"This table is for players rated {low} to {high} in {table.get_mode_display()};"
                f" your rating is {ratings[user.pk]}.")
    return None


def _bounds(creator_rating: int, width: int) -> tuple[int, int]:
    """The ratings a table with a rating range admits: its creator's ± the range."""
    return creator_rating - width, creator_rating + width


def seat_ranges(tables, user) -> dict[int, dict]:
    """``{table_id: {"low", "high", "fits"}}`` for the rated ``tables`` with a rating range
    (``games.hooks.seat_ranges``): who may sit by ``rated_seat_refusal``'s rule, and whether
    ``user`` may (None when anonymous; the creator always may). One query per mode."""
    ranged = [t for t in tables
              if t.rated and getattr(t, "rating_range", None) and t.created_by_id]
    viewer = user.pk if user is not None and user.is_authenticated else None
    out = {}
    for mode in {t.mode for t in ranged}:
        of_mode = [t for t in ranged if t.mode == mode]
        ids = {t.created_by_id for t in of_mode} | ({viewer} if viewer else set())
        ratings = selectors.ratings_for(ids, mode)
        for t in of_mode:
            low, high = _bounds(ratings[t.created_by_id], t.rating_range)
            fits = None if viewer is None else (
                viewer == t.created_by_id or low <= ratings[viewer] <= high)
            out[t.pk] = {"low": low, "high": high, "fits": fits}
    return out


def rating_changes(game_ids) -> dict[int, dict[int, int]]:
    return {
        game_id: {user_id: c["delta"] for user_id, c in per_user.items()}
        for game_id, per_user in selectors.game_changes(game_ids).items()
    }


def unrated_reasons(games) -> dict[int, str]:
    """``{game_id: reason}`` for the games created rated that change no rating
    (``rules.unrated_reason``, the one rule). Games whose moves were left out of the
    query (the archive defers them) get them in one query, and only those that need them:
    rated games that did not end normally or that somebody left (``rules.needs_moves``)."""
    from games.models import Game

    games = [g for g in games if g.rated]
    missing = [g for g in games if "actions" in g.get_deferred_fields()
               and needs_moves(g, list(g.players.all()))]
    if missing:
        actions = dict(Game.objects.filter(pk__in=[g.pk for g in missing])
                       .values_list("pk", "actions"))
        for g in missing:
            g.actions = actions.get(g.pk) or []
    reasons = {}
    for g in games:
        reason = unrated_reason(g, list(g.players.all()))
        if reason is not None:
            reasons[g.pk] = reason
    return reasons
