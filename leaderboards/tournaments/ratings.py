"""What tournaments need from ratings: one place that asks
``leaderboards.ratings``.

``ratings_for(user_ids, mode) -> {user_id: rating}`` seeds entrants and checks rating limits;
``playban_until(user) -> datetime | None`` keeps playbanned players out.
"""
from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from leaderboards.ratings import selectors


def ratings_for(user_ids: Iterable[int], mode: str) -> dict[int, int]:
    ids = list(user_ids)
    found = selectors.ratings_for(ids, mode) if ids else {}
    return {uid: int(found[uid]) for uid in ids if uid in found}


def playban_until(user) -> datetime | None:
    return selectors.playban_until(user)


def rated_games(user, up_to: int) -> int:
    """How many of ``user``'s games count for ratings, counting at most ``up_to``: the games
    created rated that the ratings app's one rule rates (a game that ended before both players
    moved is not counted, as it changes no rating)."""
    from games.models import Game
    from leaderboards.ratings.rules import unrated_reason

    counted = 0
    games = (Game.objects.filter(players__user=user, rated=True)
             .prefetch_related("players").order_by("-id"))
    for game in games.iterator(chunk_size=50):
        if unrated_reason(game, list(game.players.all())) is None:
            counted += 1
            if counted >= up_to:
                break
    return counted
