"""Celery tasks of the statistics. They take ids, re-fetch and are safe to run twice."""
from __future__ import annotations

from celery import shared_task

from . import services


@shared_task(name="stats.game_record")
def game_record(game_id: int) -> bool:
    """Count a finished game in its players' statistics (nothing if already counted)."""
    return services.stats_game_record(game_id=game_id)
