"""Celery tasks of tournaments. Each takes ids, re-fetches, and is safe to run twice (the
services lock the tournament row and re-check its state); the start and the sweep also take a
cache lock (``core.locks``) so two workers never run the same one at once."""
from __future__ import annotations

from celery import shared_task

from core.locks import beat_period, periodic_lock

from . import services

SWEEP_LOCK = "tournaments:sweep-lock"


@shared_task(name="tournaments.start")
def tournament_start(tournament_id: int) -> bool | None:
    """Queued for ``starts_at`` when the tournament is created (the sweep also starts any
    tournament that is due, if this task was lost or came early). Its lock is the sweep's
    kind: the sweep retries a start every period, so a start left locked by a killed worker
    waits no longer than the sweep would."""
    with periodic_lock(f"tournaments:start-lock:{tournament_id}",
                       beat_period("tournaments.sweep")) as held:
        return services.tournament_start(tournament_id=tournament_id) if held else None


@shared_task(name="tournaments.game_finished")
def game_finished(game_id: int) -> bool:
    """A game ended (queued by ``receivers`` after the commit, for every game): if it was
    played at a tournament table, record its match and build what comes next. Keyed by the
    game and safe to run twice (a match already recorded is left alone)."""
    return services.game_result(game_id=game_id)


@shared_task(name="tournaments.sweep")
def sweep() -> dict | None:
    """Periodic (beat, every 5 s): due starts, no-shows, arena waves and ends, scheduled
    editions. A cache lock keeps two runs from overlapping; it lasts 7.5 s (a period and a
    half, ``core.locks``), so a worker killed mid-sweep holds the tournaments up that long,
    not two minutes."""
    with periodic_lock(SWEEP_LOCK, beat_period("tournaments.sweep")) as held:
        return services.tournaments_sweep() if held else None
