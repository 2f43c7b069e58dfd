"""The computer's moves live on PostgreSQL + Redis with two Daphne processes and a real Celery
worker (no eager tasks): a player on one Daphne plays a whole game against the computer at phone
size, and a spectator on the other Daphne sees every move as it happens; neither page reloads.
Runs in CI's second pass (DATABASE_URL and REDIS_URL set)."""
from __future__ import annotations

import os
import subprocess
import sys
import uuid
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest

from tests.support.browser import log_in, phone_page, play_to_the_end, require_chromium
from tests.support.servers import ROOT, DaphneServer, manage, wait_or_kill

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not (os.environ.get("REDIS_URL") and os.environ.get("DATABASE_URL")),
        reason="needs DATABASE_URL and REDIS_URL (CI's second pass)",
    ),
]

PASSWORD = "a-Strong-pass-123"

require_chromium()


def _admin(url: str, sql: str) -> None:
    parts = urlsplit(url)
    with psycopg.connect(urlunsplit(parts._replace(path="/postgres")), autocommit=True) as c:
        c.execute(sql)


def _query(url: str, sql: str, *args):
    with psycopg.connect(url) as c:
        return c.execute(sql, args).fetchall()


@pytest.fixture
def cluster(tmp_path):
    """A database of its own (the browser's event loop rules out Django's ORM in this
    process), migrated and with one player; two Daphnes and a worker with beat on it."""
    base = os.environ["DATABASE_URL"]
    name = f"ginsite_ui_{uuid.uuid4().hex[:10]}"
    url = urlunsplit(urlsplit(base)._replace(path="/" + name))
    _admin(base, f'CREATE DATABASE "{name}"')
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    env.update({
        "DJANGO_SETTINGS_MODULE": "ginsite.settings", "DATABASE_URL": url, "DEBUG": "1",
        "CELERY_TASK_ALWAYS_EAGER": "0", "CELERY_QUEUE": f"test-{uuid.uuid4().hex[:10]}",
        "ALLOWED_HOSTS": "127.0.0.1,localhost", "PYTHONUNBUFFERED": "1",
        "CACHE_KEY_PREFIX": name, "CHANNEL_PREFIX": name,
    })
    servers, worker, worker_log = [], None, None
    try:
        manage(env, "migrate", "-v0")
        manage(env, "shell", "-c", (
            "from django.contrib.auth import get_user_model\n"
            "from allauth.account.models import EmailAddress\n"
            f"u = get_user_model().objects.create_user('nora', 'nora@example.com', '{PASSWORD}')\n"
            "EmailAddress.objects.create(user=u, email=u.email, verified=True, primary=True)\n"
        ), capture_output=True)
        servers = [DaphneServer(env, tmp_path / f"daphne-{i}.log").start() for i in (1, 2)]
        worker_log = open(tmp_path / "worker.log", "w")  # noqa: SIM115 - closed below
        worker = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "ginsite", "worker", "--beat",
             "--schedule", str(tmp_path / "beat-schedule"), "--concurrency=1",
             "--without-mingle", "--without-gossip", "--loglevel=INFO"],
            cwd=ROOT, env=env, stdout=worker_log, stderr=subprocess.STDOUT,
        )
        yield {"servers": servers, "url": url, "worker_log": tmp_path / "worker.log"}
    finally:
        if worker is not None:
            worker.terminate()
            wait_or_kill(worker, grace=20)
        if worker_log is not None:
            worker_log.close()
        for srv in servers:
            srv.stop()
        _admin(base, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def test_the_computer_plays_live_across_two_daphnes(cluster, chromium):
    one, two = cluster["servers"]
    ctx, page, errors = phone_page(chromium)
    log_in(page, one.base, "nora", PASSWORD)
    page.goto(one.base + "/play/classic/")
    page.fill("input[name=target]", "50")
    page.select_option("select[name=seconds_per_turn]", "0")
    page.select_option("select[name=bots]", "1")
    page.click("form[action$='/new/'] button[type=submit]")
    page.wait_for_selector(".tbl-conn[data-state=open]")
    table_id = int(page.get_attribute("#table-app", "data-table-id"))

    watcher_ctx = chromium.new_context(viewport={"width": 1280, "height": 800})
    watcher = watcher_ctx.new_page()
    watcher.goto(f"{two.base}/tables/{table_id}/")
    watcher.wait_for_selector(".tbl-conn[data-state=open]")
    for p in (page, watcher):
        p.evaluate("window.__samePage = true")

    decisions = play_to_the_end(page)
    page.wait_for_selector(".tbl-panel[data-kind=game-over]")
    final = _query(cluster["url"], "SELECT version FROM games_table WHERE id = %s",
                   table_id)[0][0]
    watcher.wait_for_function("v => window.ginTable.socket.version >= v", arg=final,
                              timeout=15000)
    for p in (page, watcher):
        assert p.evaluate("window.__samePage") is True, "a page was reloaded"
    sources = dict(_query(
        cluster["url"], "SELECT source, COUNT(*) FROM games_tableaction WHERE table_id = %s"
        " GROUP BY source", table_id))
    assert sources.get("bot", 0) >= 1, sources  # a game to 50 may end within a hand
    assert sources.get("player", 0) == decisions
    assert "games.table_bot_move" in cluster["worker_log"].read_text()
    assert errors == []
    ctx.close()
    watcher_ctx.close()
