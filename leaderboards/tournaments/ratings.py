"""What tournaments need from ratings: one place that asks
``leaderboards.ratings``.

``ratings_for(user_ids, mode) -> {user_id: rating}`` seeds entrants and checks rating limits;
``seed_ratings(user_ids, mode) -> {user_id: (rating, provisional)}`` seeds entrants at the
start (one query);
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


def seed_ratings(user_ids: Iterable[int], mode: str) -> dict[int, tuple[int, bool]]:
    ids = list(user_ids)
    return selectors.seed_ratings(ids, mode) if ids else {}


def playban_until(user) -> datetime | None:
    return selectors.playban_until(user)


def rated_games(user, up_to: int) -> int:
    """How many of ``user``'s games count for ratings, counting at most ``up_to``: the games
    created rated that the ratings app's one rule rates for this user (a game that ended
    before both players moved is not counted, as it changes no rating; nor is a person's
    game against a bot account, which moves only the bot's, docs/ratings.md "Bots")."""
    from django.db.models import Prefetch

    from games.models import Game, GamePlayer
    from leaderboards.ratings.rules import rated_entries

    counted = 0
    games = (Game.objects.filter(players__user=user, rated=True)
             .prefetch_related(Prefetch("players", queryset=GamePlayer.objects
                                        .select_related("user").only("game_id", "seat",
                                                                     "user_id", "bot_level",
                                                                     "place", "left",
                                                                     "user__is_bot")))
             .order_by("-id"))
    for game in games.iterator(chunk_size=50):
        players = list(game.players.all())
        bots = {p.user_id for p in players if p.user_id is not None and p.user.is_bot}
        entries = rated_entries(game, players, bots)
        if entries is not None and any(e.user_id == user.pk and e.moves for e in entries):
            counted += 1
            if counted >= up_to:
                break
    return counted
