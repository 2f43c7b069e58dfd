"""A real ``celery -A ginsite worker`` process on this test's database and broker."""
from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import uuid
from urllib.parse import urlsplit, urlunsplit

from django.db import connection

from ginsite.celery import app as celery_app
from tests.support.servers import ROOT, wait_for_other_db_sessions_to_end


def worker_env(queue: str) -> dict[str, str]:
    env = dict(os.environ)
    env["DJANGO_SETTINGS_MODULE"] = "ginsite.settings"
    env["CELERY_TASK_ALWAYS_EAGER"] = "0"
    db = connection.settings_dict
    if db["ENGINE"].endswith("sqlite3"):
        env["SQLITE_PATH"] = str(db["NAME"])
    else:  # the test database, on the same server as DATABASE_URL
        parts = urlsplit(os.environ["DATABASE_URL"])
        env["DATABASE_URL"] = urlunsplit(parts._replace(path="/" + db["NAME"]))
    return env




@contextlib.contextmanager
def celery_worker(settings, prefix: str, *, default_queue: bool = False, tail: int = 4000):
    """A ``celery -A ginsite worker`` on its own new queue (named ``prefix-<random>``, and its
    analyses' queue ``<queue>.analysis``, which the site gives a worker of its own), with
    tasks published for real (not eagerly) until the block ends; yields ``(worker, queue)``.
    With ``default_queue`` every task goes to this worker's queue. At the end the worker is
    stopped, its output printed (shown when the test fails) and the eager setting restored;
    then the block waits until the worker's database sessions have ended."""
    queue = f"{prefix}-{uuid.uuid4().hex[:10]}"
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "ginsite", "worker",
         "-Q", f"{queue},{queue}.analysis",
         "--pool=solo", "--without-mingle", "--without-gossip", "--without-heartbeat",
         "--loglevel=INFO"],
        cwd=ROOT, env=worker_env(queue), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )
    settings.CELERY_TASK_ALWAYS_EAGER = False
    celery_app.conf.task_always_eager = False
    old_queue = celery_app.conf.task_default_queue
    if default_queue:
        celery_app.conf.task_default_queue = queue
    try:
        yield worker, queue
    finally:
        celery_app.conf.task_always_eager = True  # the test settings are eager
        celery_app.conf.task_default_queue = old_queue
        worker.terminate()
        try:
            output, _ = worker.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            worker.kill()
            output, _ = worker.communicate()
        print(output.decode(errors="replace")[-tail:])
        wait_for_other_db_sessions_to_end()
