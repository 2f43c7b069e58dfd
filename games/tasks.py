"""Celery tasks of live play. Each takes ids, re-fetches, and is safe to run twice."""
from __future__ import annotations

from celery import shared_task
from django.db import DatabaseError
from redis.exceptions import RedisError

from core.locks import beat_period, lock_seconds, periodic_lock

from . import services

# A bot move that fails on the database or the broker is tried again (it is idempotent: it
# does nothing once the table has moved on); if every try fails, the bot's turn deadline
# brings the sweep, which plays the move.
RETRIED = (DatabaseError, RedisError, ConnectionError, TimeoutError)
SWEEP_LOCK = "games:sweep-lock"
SWEEP_LOCK_SECONDS = lock_seconds(beat_period("games.sweep"))  # 3 s: every 2 s, in milliseconds


@shared_task(name="games.table_bot_move", autoretry_for=RETRIED, max_retries=5,
             retry_backoff=0.5, retry_backoff_max=4, retry_jitter=False)
def table_bot_move(table_id: int, version: int) -> bool:
    """The bot to act at ``version`` plays (nothing if the table has moved on)."""
    return services.table_bot_move(table_id=table_id, version=version)


@shared_task(name="games.table_presence")
def table_presence(table_id: int) -> None:
    """After a disconnection's grace period: publish presence so opponents may claim."""
    services.table_presence_publish(table_id=table_id)


@shared_task(name="games.analyse", autoretry_for=RETRIED, max_retries=3,
             retry_backoff=1, retry_backoff_max=8, retry_jitter=False)
def analyse(job_id: int) -> bool:
    """The analysis job ``job_id`` (queued by ``services.analysis_request`` after its
    commit): judge every decision of the game and store it. Safe to run twice, and to be
    delivered twice (the broker's visibility timeout is shorter than a long analysis): a job
    done, failed or running elsewhere (a recent sign of life) is left alone."""
    return services.analysis_run(job_id=job_id)


@shared_task(name="games.offline_check", autoretry_for=RETRIED, max_retries=3,
             retry_backoff=1, retry_backoff_max=8, retry_jitter=False)
def offline_check(offline_id: str) -> bool:
    """An offline game against the Expert, uploaded and waiting (queued by
    ``services.offline_game_store`` after its commit, on the analyses' queue): its every
    computer move played again, then stored or refused. Safe to run twice."""
    return services.offline_check_run(offline_id=offline_id)


@shared_task(name="games.sweep")
def sweep() -> dict | None:
    """Periodic (beat, every 2 s): turn deadlines of tables no seated player is connected to
    (and any missed across a restart), presence, stale open tables. A cache lock keeps two
    runs from overlapping (``core.locks``). It lasts a period and a half only: a worker killed
    during a run leaves it behind, and with 60 s the next runs (and a late computer's move)
    waited that long; a run that outlasts it overlaps the next one, which is safe (every step
    re-checks under the table's row lock). With the cache down it sweeps anyway."""
    with periodic_lock(SWEEP_LOCK, beat_period("games.sweep")) as held:
        return services.tables_sweep() if held else None
