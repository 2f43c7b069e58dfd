"""The real Celery worker path: the periodic sweep, published for real (not eagerly), is
executed by a ``celery -A ginsite worker`` process on the same database and broker and
applies a turn deadline that fell due while no player was connected."""
from __future__ import annotations

import subprocess
import sys
import time
import uuid
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from games import tasks
from games.models import ActionSource, Table, TableAction
from ginsite.celery import app as celery_app
from tests.support.servers import wait_for_other_db_sessions_to_end
from tests.support.tables import start_table
from tests.support.workers import worker_env

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]
ROOT = Path(__file__).resolve().parents[2]


def test_worker_applies_a_turn_deadline(rooms, two_players, settings):
    alice, bob = two_players
    table = start_table(rooms["classic"], [alice, bob], seconds=15)
    queue = f"test-worker-{uuid.uuid4().hex[:10]}"
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "ginsite", "worker", "-Q", queue,
         "--pool=solo", "--without-mingle", "--without-gossip", "--without-heartbeat",
         "--loglevel=INFO"],
        cwd=ROOT, env=worker_env(queue), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )
    settings.CELERY_TASK_ALWAYS_EAGER = False
    celery_app.conf.task_always_eager = False
    try:
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
    finally:
        celery_app.conf.task_always_eager = True  # the test settings are eager
        worker.terminate()
        try:
            output, _ = worker.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            worker.kill()
            output, _ = worker.communicate()
        if not moves:
            print(output.decode(errors="replace")[-4000:])
        wait_for_other_db_sessions_to_end()


