"""Celery tasks of tournaments. Each takes ids, re-fetches, and is safe to run twice (the
services lock the tournament row and re-check its state); the start and the sweep also take a
cache lock so two workers never run the same one at once."""
from __future__ import annotations

from celery import shared_task
from django.core.cache import cache

from . import services


@shared_task(name="tournaments.start")
def tournament_start(tournament_id: int) -> bool | None:
    """Queued for ``starts_at`` when the tournament is created (the sweep also starts any
    tournament that is due, if this task was lost or came early)."""
    key = f"tournaments:start-lock:{tournament_id}"
    if not cache.add(key, 1, 120):
        return None
    try:
        return services.tournament_start(tournament_id=tournament_id)
    finally:
        cache.delete(key)


@shared_task(name="tournaments.match_finished")
def match_finished(table_id: int) -> bool:
    """A game at a tournament table ended: record it and build what comes next."""
    return services.match_result(table_id=table_id)


@shared_task(name="tournaments.sweep")
def sweep() -> dict | None:
    """Periodic (beat, every 5 s): due starts, no-shows, arena waves and ends, scheduled
    editions. A cache lock keeps two runs from overlapping."""
    if not cache.add("tournaments:sweep-lock", 1, 120):
        return None
    try:
        return services.tournaments_sweep()
    finally:
        cache.delete("tournaments:sweep-lock")
