"""Celery tasks of ratings, playbans and leaderboards. Each takes ids, re-fetches, and is safe
to run twice; the periodic ones take a cache lock (``core.locks``, lasting a period and a half) so
two runs never overlap."""
from __future__ import annotations

from celery import shared_task

from core.locks import beat_period, periodic_lock

from . import services

LEADERBOARD_LOCK = "leaderboards:compute-lock"
CATCH_UP_LOCK = "leaderboards:catch-up-lock"


@shared_task(name="leaderboards.game_rated")
def game_rated(game_id: int) -> int:
    """A game finished (queued by ``receivers`` after the commit, for every game): rate it
    (and any earlier unrated game of its mode), then record a playban strike if someone
    timed out or left. Keyed by the game and safe to run twice (a rated game and a recorded
    strike are left alone). Returns the number of games rated."""
    done = services.game_rate(game_id=game_id)
    services.playban_record(game_id=game_id)
    return len(done)


@shared_task(name="leaderboards.catch_up")
def catch_up() -> int | None:
    """Periodic: rate games whose task was lost (within the catch-up window)."""
    with periodic_lock(CATCH_UP_LOCK, beat_period("leaderboards.catch_up")) as held:
        return services.ratings_catch_up() if held else None


@shared_task(name="leaderboards.compute")
def compute() -> dict | None:
    """Periodic (beat): recompute every mode's leaderboard snapshot under a lock."""
    with periodic_lock(LEADERBOARD_LOCK, beat_period("leaderboards.compute")) as held:
        return services.leaderboards_compute_all() if held else None
