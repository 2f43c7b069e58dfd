"""Celery tasks of the statistics. They take ids, re-fetch and are safe to run twice."""
from __future__ import annotations

from celery import shared_task
from django.core.cache import cache

from . import services


@shared_task(name="stats.game_record", bind=True, max_retries=None)
def game_record(self, game_id: int) -> bool:
    """Count a finished game in its players' statistics (nothing if already counted).
    While ``stats_rebuild`` runs, wait for it (the rebuild replaces every row)."""
    if cache.get(services.REBUILD_LOCK):
        raise self.retry(countdown=30)
    return services.stats_game_record(game_id=game_id)
