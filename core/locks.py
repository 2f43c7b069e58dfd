"""The one lock of periodic work: two runs of a beat task never overlap, and a run whose
worker was killed (its lock left behind in the cache) holds the next runs up for about one
period, not minutes.

    with periodic_lock("tournaments:sweep-lock", beat_period("tournaments.sweep")) as held:
        if not held:
            return None  # another run is under way
        return services.tournaments_sweep()

The lock lasts ``lock_seconds(period)``: one and a half periods (at least a second, at most
ten minutes). A run that takes longer than that overlaps the next one, which every periodic
task here allows (each re-checks its rows under their own row locks); a killed run's lock
lapses after 1.5 periods, so the next run comes at most about two periods late. The lock
holds a token of its own: a run whose lock lapsed and was taken by the next run does not
release that run's lock.

When the cache cannot be reached (Redis down) the run goes ahead without the lock, as if it
held it: the work itself is safe to run twice, and skipping it would stop clocks and
tournaments for the whole outage.
"""
from __future__ import annotations

import logging
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta

from django.conf import settings
from django.core.cache import cache

logger = logging.getLogger(__name__)

LOCK_FACTOR = 1.5  # lock time / period
MIN_SECONDS = 1.0
MAX_SECONDS = 600.0


def lock_seconds(period_seconds: float) -> float:
    """How long the lock of a task run every ``period_seconds`` lasts.

    >>> lock_seconds(2), lock_seconds(5), lock_seconds(60), lock_seconds(300)
    (3.0, 7.5, 90.0, 450.0)
    >>> lock_seconds(6 * 3600)
    600.0
    """
    return min(MAX_SECONDS, max(MIN_SECONDS, LOCK_FACTOR * float(period_seconds)))


def beat_period(task_name: str) -> float:
    """The period, in seconds, of ``task_name`` in ``CELERY_BEAT_SCHEDULE`` (the one place
    the periods are written). A task that is not scheduled there is a configuration error."""
    for entry in getattr(settings, "CELERY_BEAT_SCHEDULE", {}).values():
        if entry.get("task") == task_name:
            schedule = entry["schedule"]
            if isinstance(schedule, timedelta):
                return schedule.total_seconds()
            if isinstance(schedule, (int, float)):
                return float(schedule)
            # a crontab or solar schedule: the time between two of its runs
            return float(schedule.run_every.total_seconds())
    raise LookupError(f"{task_name} is not in CELERY_BEAT_SCHEDULE")


def _cache_errors() -> tuple[type[BaseException], ...]:
    errors: list[type[BaseException]] = [ConnectionError, TimeoutError]
    try:
        from redis.exceptions import RedisError
    except ImportError:  # pragma: no cover - redis is a requirement
        pass
    else:
        errors.append(RedisError)
    return tuple(errors)


CACHE_ERRORS = _cache_errors()


class Lease:
    """A held lock: ``held`` says whether this run may go ahead; ``renew()`` pushes its end
    ``seconds`` ahead again (for long work that is not periodic: see ``lease``)."""

    def __init__(self, name: str, seconds: float):
        self.name, self.seconds = name, seconds
        self.token = secrets.token_hex(8)
        self.held = False
        self.owned = False  # the cache holds our token (False when run without the cache)

    def acquire(self) -> bool:
        try:
            self.owned = self.held = bool(cache.add(self.name, self.token, self.seconds))
        except CACHE_ERRORS:
            logger.warning("cache down: %s runs without its lock", self.name)
            self.held = True
        return self.held

    def renew(self) -> None:
        if not self.owned:
            return
        try:
            if cache.get(self.name) == self.token:
                cache.touch(self.name, self.seconds)
        except CACHE_ERRORS:
            pass

    def release(self) -> None:
        if not self.owned:
            return
        try:
            if cache.get(self.name) == self.token:
                cache.delete(self.name)
        except CACHE_ERRORS:
            pass  # it lapses on its own


@contextmanager
def lease(name: str, seconds: float) -> Iterator[Lease]:
    """Hold the cache lock ``name`` for ``seconds``, renewed by the holder as it makes
    progress (``Lease.renew``): for long work that is not periodic (a statistics rebuild),
    so a killed run's lock lapses ``seconds`` after its last sign of life. The lease's
    ``held`` is False when someone else holds the lock."""
    held = Lease(name, seconds)
    held.acquire()
    try:
        yield held
    finally:
        held.release()


@contextmanager
def periodic_lock(name: str, period_seconds: float) -> Iterator[bool]:
    """Hold the cache lock ``name`` for a run of a task scheduled every ``period_seconds``.

    Yields True when this run may go ahead (it took the lock, or the cache is down), False
    when another run holds it. Released on the way out, if it is still this run's."""
    with lease(name, lock_seconds(period_seconds)) as held:
        yield held.held
