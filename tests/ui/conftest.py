"""Fixtures of the browser tests: one headless Chromium for the session (the servers, the
browser constants and the play helpers are in tests/support)."""
from __future__ import annotations

import os
import signal
import subprocess
import time

import pytest

from tests.support.accounts import PASSWORD
from tests.support.browser import CHROMIUM, CHROMIUM_ARGS
from tests.support.servers import ROOT, RUN_COMMAND, free_port, health


@pytest.fixture(scope="session")
def chromium():
    """One headless Chromium for the session (each test opens its own contexts)."""
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="the playwright package is not installed"
    )
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"{CHROMIUM} is missing (apt-get install chromium)")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()




@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """`bash scripts/run.sh` on a free port with its own var/ directory (database, broker
    folders, beat schedule); stopped with SIGINT, as Ctrl-C would, at the end."""
    tmp = tmp_path_factory.mktemp("runsh")
    port = free_port()
    env = {k: v for k, v in os.environ.items()
           if k not in ("DATABASE_URL", "REDIS_URL", "CELERY_TASK_ALWAYS_EAGER",
                        "DJANGO_SETTINGS_MODULE", "GINSITE_RELAY_URL")}
    env.update({"GINSITE_VAR_DIR": str(tmp / "var"), "PORT": str(port), "HOST": "127.0.0.1",
                "PYTHONUNBUFFERED": "1"})
    log_path = tmp / "run.log"
    log = open(log_path, "w")
    proc = subprocess.Popen(RUN_COMMAND, cwd=ROOT, env=env, stdout=log,
                            stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        while True:
            body = health(base)
            if body and body["status"] == "ok":
                break  # the worker has run the sweep: it is up
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"run.sh did not come up ({body}):\n{log_path.read_text()[-4000:]}")
            time.sleep(0.5)
        manage_env = {**env, "DJANGO_SETTINGS_MODULE": "ginsite.settings"}
        subprocess.run(
            [str(ROOT / ".venv/bin/python"), "manage.py", "shell", "-c", (
                "from django.contrib.auth import get_user_model\n"
                "from allauth.account.models import EmailAddress\n"
                "u = get_user_model().objects.create_user("
                f"'rhea', 'rhea@example.com', '{PASSWORD}')\n"
                "EmailAddress.objects.create(user=u, email=u.email, verified=True, primary=True)\n"
            )], cwd=ROOT, env=manage_env, check=True, timeout=120, capture_output=True,
        )
        yield {"base": base, "db": tmp / "var" / "db.sqlite3", "tmp": tmp, "proc": proc,
               "log": log_path}
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGINT)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)
        log.close()
