"""One lock for every periodic task (``core.locks``), its time derived from the task's
period: a run whose worker was killed leaves its lock behind, and the next runs skip for
about a period and a half, not minutes (the tournaments' sweep skipped for 120 s).

On the local-memory cache, whose clock the tests move."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.core.cache import cache
from django.core.cache.backends import locmem
from redis.exceptions import ConnectionError as RedisConnectionError

from core import locks
from games import services as games_services
from games import tasks as games_tasks
from leaderboards.ratings import services as leaderboards_services
from leaderboards.ratings import tasks as leaderboards_tasks
from leaderboards.stats import services as stats_services
from leaderboards.tournaments import services as tournaments_services
from leaderboards.tournaments import tasks as tournaments_tasks

ROOT = Path(__file__).resolve().parent.parent

# (task, its beat name, the lock's name, the module and function of the work it locks)
TASKS = [
    (games_tasks.sweep, "games.sweep", games_tasks.SWEEP_LOCK,
     games_services, "tables_sweep"),
    (tournaments_tasks.sweep, "tournaments.sweep", tournaments_tasks.SWEEP_LOCK,
     tournaments_services, "tournaments_sweep"),
    (leaderboards_tasks.compute, "leaderboards.compute", leaderboards_tasks.LEADERBOARD_LOCK,
     leaderboards_services, "leaderboards_compute_all"),
    (leaderboards_tasks.catch_up, "leaderboards.catch_up", leaderboards_tasks.CATCH_UP_LOCK,
     leaderboards_services, "ratings_catch_up"),
    (lambda: tournaments_tasks.tournament_start(7), "tournaments.sweep",
     "tournaments:start-lock:7", tournaments_services, "tournament_start"),
]
IDS = ["games.sweep", "tournaments.sweep", "leaderboards.compute", "leaderboards.catch_up",
       "tournaments.start"]


@pytest.fixture
def clock(monkeypatch, settings):
    """A fresh local-memory cache and a clock the test moves (``clock.now += 5``)."""
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache",
                                   "LOCATION": "core-locks-test"}}
    cache.clear()

    class Clock:
        now = locmem.time.time()

    monkeypatch.setattr(locmem.time, "time", lambda: Clock.now)
    yield Clock
    cache.clear()


def _counting(monkeypatch, module, name):
    calls = []
    monkeypatch.setattr(module, name, lambda *a, **k: calls.append(1) or {"ran": True})
    return calls


@pytest.mark.parametrize(("task", "beat", "lock", "module", "work"), TASKS, ids=IDS)
def test_a_killed_runs_lock_holds_up_the_next_runs_for_about_a_period(
        clock, monkeypatch, task, beat, lock, module, work):
    period = locks.beat_period(beat)
    calls = _counting(monkeypatch, module, work)
    with monkeypatch.context() as killed:  # the worker dies before it gives the lock back
        killed.setattr(locks.Lease, "release", lambda self: None)
        assert task() is not None
    assert cache.get(lock) is not None and calls == [1]
    assert task() is None and calls == [1]  # another run "holds" it: skipped
    clock.now += period  # one period on: still the dead run's
    assert task() is None and calls == [1]
    clock.now += 0.5 * period + 0.01  # a period and a half: it has lapsed
    assert task() is not None and calls == [1, 1]
    assert cache.get(lock) is None  # a finished run gives its lock back
    assert task() is not None and calls == [1, 1, 1]


def test_the_lock_time_is_derived_from_the_beat_period(settings):
    assert locks.beat_period("games.sweep") == 2
    assert locks.beat_period("tournaments.sweep") == 5
    assert locks.lock_seconds(2) == 3 and locks.lock_seconds(5) == 7.5
    assert locks.lock_seconds(300) == 450 and locks.lock_seconds(60) == 90
    assert locks.lock_seconds(6 * 3600) == locks.MAX_SECONDS
    settings.CELERY_BEAT_SCHEDULE = {**settings.CELERY_BEAT_SCHEDULE,
                                     "tournaments-sweep": {"task": "tournaments.sweep",
                                                           "schedule": 30.0}}
    assert locks.beat_period("tournaments.sweep") == 30  # follows the schedule
    with pytest.raises(LookupError):
        locks.beat_period("no.such.task")


def test_runs_never_overlap_while_the_lock_is_held(clock):
    with locks.periodic_lock("x-lock", 10) as first:
        assert first
        with locks.periodic_lock("x-lock", 10) as second:
            assert not second
    with locks.periodic_lock("x-lock", 10) as third:
        assert third


def test_a_late_run_does_not_release_the_next_runs_lock(clock):
    with locks.periodic_lock("x-lock", 2) as slow:
        assert slow
        clock.now += 3.1  # the slow run outlived its lock; the next run takes it
        with locks.lease("x-lock", 3) as next_run:
            assert next_run.held
            assert cache.get("x-lock") == next_run.token
    # (the slow run ended inside: it left the next run's lock alone; that one's own exit
    # released it)
    assert cache.get("x-lock") is None
    with locks.periodic_lock("x-lock", 2) as slow:
        clock.now += 3.1
        assert cache.add("x-lock", "other", 3)
    assert cache.get("x-lock") == "other"


def test_with_the_cache_down_the_task_runs_anyway(monkeypatch):
    def down(*args, **kwargs):
        raise RedisConnectionError("Redis is down")

    monkeypatch.setattr(cache, "add", down)
    monkeypatch.setattr(cache, "get", down)
    monkeypatch.setattr(cache, "delete", down)
    calls = _counting(monkeypatch, tournaments_services, "tournaments_sweep")
    assert tournaments_tasks.sweep() == {"ran": True} and calls == [1]
    calls = _counting(monkeypatch, games_services, "tables_sweep")
    assert games_tasks.sweep() == {"ran": True} and calls == [1]


def test_a_rebuild_lease_lapses_after_its_last_renewal(clock):
    """The statistics rebuild is not periodic (a command, run by hand): it holds a lease that
    it renews after every batch, so a killed rebuild holds the games' tasks up for two
    minutes after its last batch, not six hours."""
    with locks.lease(stats_services.REBUILD_LOCK, stats_services.REBUILD_LEASE_SECONDS) as held:
        assert held.held
        for _ in range(5):  # a long rebuild: five batches of 100 s each
            clock.now += 100
            held.renew()
            assert cache.get(stats_services.REBUILD_LOCK) == held.token
        killed = held
        killed.owned = False  # the process dies here: nothing gives the lease back
    assert cache.get(stats_services.REBUILD_LOCK) is not None
    clock.now += stats_services.REBUILD_LEASE_SECONDS + 0.01
    assert cache.get(stats_services.REBUILD_LOCK) is None


def test_every_cache_lock_goes_through_core_locks():
    """No hand-written ``cache.add(..., lock ...)`` is left in the apps."""
    found = []
    for app in ("accounts", "games", "social", "leaderboards", "ginsite"):
        for path in (ROOT / app).rglob("*.py"):
            text = path.read_text()
            for m in re.finditer(r"cache\.add\(([^)]*)\)", text):
                if "lock" in m.group(1).lower():
                    found.append(f"{path.relative_to(ROOT)}: {m.group(0)}")
    assert found == []
