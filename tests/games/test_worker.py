"""The real Celery worker path: the periodic sweep, published for real (not eagerly), is
executed by a ``celery -A ginsite worker`` process on the same database and broker and
applies a turn deadline that fell due while no player was connected."""
from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.utils import timezone

from games import tasks
from games.models import ActionSource, Table, TableAction
from tests.support.tables import start_table
from tests.support.workers import celery_worker

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def test_worker_applies_a_turn_deadline(rooms, two_players, settings):
    alice, bob = two_players
    table = start_table(rooms["classic"], [alice, bob], seconds=15)
    with celery_worker(settings, "test-worker") as (worker, queue):
        Table.objects.filter(pk=table.pk).update(
            turn_deadline=timezone.now() - timedelta(seconds=2))
        tasks.sweep.apply_async(countdown=0.5, queue=queue)
        deadline = time.monotonic() + 90
        moves = []
        while time.monotonic() < deadline:
            moves = list(TableAction.objects.filter(table=table))
            if moves or worker.poll() is not None:
                break
            time.sleep(0.5)
        assert worker.poll() is None, "the worker died"
        assert moves, "the worker did not apply the deadline"
        assert all(m.source == ActionSource.TIMEOUT for m in moves)
        assert Table.objects.get(pk=table.pk).version == table.version + len(moves)
