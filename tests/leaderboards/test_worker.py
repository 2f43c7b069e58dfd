"""The real path: a rated game finished through the services queues its rating task (not
eagerly) on Redis, and a ``celery -A ginsite worker`` process on the same database rates it.
Runs in CI's second pass (PostgreSQL and Redis); skipped without ``REDIS_URL``."""
from __future__ import annotations

import os
import time

import pytest

from games import services as games_services
from games.models import Game
from leaderboards.models import Rating, RatingChange
from tests.support.tables import play_one
from tests.support.workers import celery_worker

pytestmark = [
    pytest.mark.worker, pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="needs Redis (REDIS_URL)"),
]


def test_worker_rates_a_finished_game(rooms, make_user, settings):
    alice, bob = make_user("alice"), make_user("bob")
    rated = []
    with celery_worker(settings, "test-ratings", default_queue=True) as (worker, queue):
        table = games_services.table_create(user=alice, room=rooms["classic"], rated=True)
        games_services.table_sit(table_id=table.pk, user=bob)
        for _ in range(2):
            play_one(table.pk, {0: alice, 1: bob})
        games_services.table_resign(table_id=table.pk, user=alice)
        game = Game.objects.get(table=table)
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            rated = list(RatingChange.objects.filter(game=game))
            if rated or worker.poll() is not None:
                break
            time.sleep(0.3)
        assert worker.poll() is None, "the worker died"
        assert len(rated) == 2, "the worker did not rate the game"
        assert Rating.objects.get(user=bob, mode="classic").rating > 1500
        assert Rating.objects.get(user=alice, mode="classic").rating < 1500
