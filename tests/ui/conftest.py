"""Fixtures of the browser tests: one headless Chromium for the session (the servers, the
browser constants and the play helpers are in tests/support)."""
from __future__ import annotations

import os

import pytest

from tests.support.accounts import PASSWORD
from tests.support.browser import CHROMIUM, CHROMIUM_ARGS
from tests.support.servers import RunSite


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


@pytest.fixture(scope="session")
def run_site(tmp_path_factory):
    """One `bash scripts/run.sh` (``RunSite``) for every browser test that runs on the
    README's run command: starting it is the dearest set-up of the suite (Daphne, a Celery
    worker with beat, the collect and migrate steps, 15-45 s). Each test on it makes its own
    users, tables and tokens (distinct names) and counts only its own rows; ``rhea``
    (verified) is made here. Stopped (SIGINT) when the session ends."""
    run = RunSite(tmp_path_factory.mktemp("runsh"))
    try:
        try:
            run.start(timeout=180)
        except RuntimeError as exc:
            pytest.fail(str(exc))
        run.manage_shell(
            "from django.contrib.auth import get_user_model\n"
            "from allauth.account.models import EmailAddress\n"
            "u = get_user_model().objects.create_user("
            f"'rhea', 'rhea@example.com', '{PASSWORD}')\n"
            "EmailAddress.objects.create(user=u, email=u.email, verified=True, primary=True)\n"
        )
        yield run
    finally:
        run.stop()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """A failing test on the run command carries the end of the site's console (Daphne's and
    the workers' logs) in its report: a worker that did not run a task in time, or a command
    that failed, is then seen in CI's log, not guessed at afterwards."""
    report = yield
    run = item.funcargs.get("site") if hasattr(item, "funcargs") else None
    if report.failed and isinstance(run, RunSite):
        report.sections.append(("the run command's console, last lines", run.log_tail()))
    return report


@pytest.fixture
def site(run_site):
    """The session's run command, running: a test that stopped it (test_offline_browser
    stops and restarts it, test_run_command's Ctrl-C test stops it) leaves it to be started
    again, on the same port and data, for the next test that needs it."""
    if run_site.proc is None or run_site.proc.poll() is not None:
        try:
            run_site.start()
        except RuntimeError as exc:
            pytest.fail(str(exc))
    return run_site
