"""Celery tasks of ratings and leaderboards. Each takes ids, re-fetches, and is safe to run
twice; the periodic ones take a cache lock so two runs never overlap."""
from __future__ import annotations

from celery import shared_task
from django.core.cache import cache

from . import services

LEADERBOARD_LOCK = "leaderboards:compute-lock"


@shared_task(name="leaderboards.game_rated")
def game_rated(game_id: int) -> int:
    """A game finished: rate it (and any earlier unrated game of its mode), then record a
    playban strike if someone timed out or left. Returns the number of games rated."""
    done = services.game_rate(game_id=game_id)
    services.playban_record(game_id=game_id)
    return len(done)


@shared_task(name="leaderboards.catch_up")
def catch_up() -> int | None:
    """Periodic: rate games whose task was lost (within the catch-up window)."""
    if not cache.add("leaderboards:catch-up-lock", 1, 300):
        return None
    try:
        return services.ratings_catch_up()
    finally:
        cache.delete("leaderboards:catch-up-lock")


@shared_task(name="leaderboards.compute")
def compute() -> dict | None:
    """Periodic (beat): recompute every mode's leaderboard snapshot under a lock."""
    if not cache.add(LEADERBOARD_LOCK, 1, 600):
        return None
    try:
        return services.leaderboards_compute_all()
    finally:
        cache.delete(LEADERBOARD_LOCK)
