"""The site started exactly as the README says (`bash scripts/run.sh`: Daphne and a real Celery
worker with beat, SQLite, the embedded channel layer, no eager tasks), and a whole game against
the computer played in a phone-sized browser without a reload: every computer move is played
by the worker process and must reach the page live. Then Ctrl-C stops everything.

The person's moves are chosen by the Hard bot from the page's own view (what the seat may see)
and sent through the page's own move path, so the game ends in a few hands.
"""
from __future__ import annotations

import ast
import json
import os
import re
import signal
import sqlite3
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from .conftest import CHROMIUM, ROOT, free_port, play_to_the_end

pytestmark = pytest.mark.browser

PASSWORD = "a-Strong-pass-123"

pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
if not os.path.exists(CHROMIUM):
    pytest.skip(f"{CHROMIUM} is missing (apt-get install chromium)", allow_module_level=True)


def _health(base: str) -> dict | None:
    try:
        with urllib.request.urlopen(base + "/healthz", timeout=2) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return json.loads(exc.read())
    except Exception:
        return None


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
    proc = subprocess.Popen(["bash", "scripts/run.sh"], cwd=ROOT, env=env, stdout=log,
                            stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        while True:
            body = _health(base)
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


def _sources(db: Path, table_id: int) -> dict[str, int]:
    con = sqlite3.connect(db)
    try:
        rows = con.execute(
            "SELECT source, COUNT(*) FROM games_tableaction WHERE table_id = ? GROUP BY source",
            (table_id,),
        ).fetchall()
    finally:
        con.close()
    return dict(rows)


def test_a_whole_game_against_the_computer_on_the_run_command(site, chromium):
    base = site["base"]
    ctx = chromium.new_context(viewport={"width": 390, "height": 844}, has_touch=True,
                               is_mobile=True)
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(base + "/accounts/login/")
    page.fill("input[name=login]", "rhea")
    page.fill("input[name=password]", PASSWORD)
    page.click("form button[type=submit]")
    page.wait_for_load_state()
    # A table against the Easy computer, to 50 points, untimed.
    page.goto(base + "/play/classic/")
    page.fill("input[name=target]", "50")
    page.select_option("select[name=seconds_per_turn]", "0")
    page.select_option("select[name=bots]", "1")
    page.click("form[action$='/new/'] button[type=submit]")
    page.wait_for_selector("#table-app")
    page.wait_for_selector(".tbl-conn[data-state=open]")
    table_id = int(page.get_attribute("#table-app", "data-table-id"))
    page.evaluate("window.__samePage = true")  # gone if the page were reloaded

    decisions = play_to_the_end(page)
    page.wait_for_selector(".tbl-panel[data-kind=game-over]")
    assert page.evaluate("window.__samePage") is True, "the page was reloaded"
    # (a game to 50 may end within a hand: what counts is that every computer move reached
    # the page live, so the page ends at the stored version)
    sources = _sources(site["db"], table_id)
    assert sources.get("bot", 0) >= 1, sources
    assert sources.get("player", 0) == decisions
    con = sqlite3.connect(site["db"])
    try:
        stored = con.execute("SELECT version FROM games_table WHERE id = ?",
                             (table_id,)).fetchone()[0]
    finally:
        con.close()
    assert page.evaluate("window.ginTable.socket.version") == stored
    page.screenshot(path=str(site["tmp"] / "run-command-game-over.png"), full_page=True)
    assert errors == []
    ctx.close()
    log = site["log"].read_text()
    assert "games.table_bot_move" in log, "the computer's moves ran in the worker"


def test_the_console_shows_the_signup_link_and_not_every_sweep(site, chromium):
    """Issue 19, item 13: a sign-up's verification link stands out on the console, whole,
    and opening it verifies the address; the sweeps beat sends every 2 s are not logged when
    they did nothing."""
    base = site["base"]
    ctx = chromium.new_context(viewport={"width": 390, "height": 844})
    page = ctx.new_page()
    try:
        page.goto(base + "/accounts/signup/")
        page.fill("input[name=username]", "nora")
        page.fill("input[name=email]", "nora@example.com")
        page.fill("input[name=password1]", PASSWORD)
        page.fill("input[name=password2]", PASSWORD)
        page.click("form button[type=submit]")
        page.wait_for_load_state()
        deadline = time.monotonic() + 20
        while "Open this link to verify" not in site["log"].read_text():
            assert time.monotonic() < deadline, site["log"].read_text()[-3000:]
            time.sleep(0.2)
        text = site["log"].read_text()
        framed = re.search(r"^={78}\n  Email to nora@example.com: .*\n"
                           r"  >>> Open this link to verify: (http://\S+)\n={78}$",
                           text, re.MULTILINE)
        assert framed, text[-3000:]
        page.goto(framed.group(1))
        page.click("form button[type=submit]")  # allauth confirms on POST
        page.wait_for_load_state()
        con = sqlite3.connect(site["db"])
        try:
            verified = con.execute("SELECT verified FROM account_emailaddress "
                                   "WHERE email = 'nora@example.com'").fetchone()[0]
        finally:
            con.close()
        assert verified
    finally:
        ctx.close()
    time.sleep(5)  # a few more runs of each sweep
    text = site["log"].read_text()
    assert "celery@" in text and "ready" in text  # the worker's own lines are there
    assert "Sending due task games-sweep" not in text
    for line in text.splitlines():  # only runs that did something, with what they did
        if "games.sweep[" in line:
            assert "succeeded" in line, line
            result = ast.literal_eval(line.split("succeeded in ", 1)[1].split(": ", 1)[1])
            assert any(result.values()), line


def test_ctrl_c_stops_the_site_and_the_worker(site):
    proc = site["proc"]
    os.killpg(proc.pid, signal.SIGINT)
    proc.wait(timeout=30)
    time.sleep(0.5)
    left = subprocess.run(["pgrep", "-g", str(proc.pid)], capture_output=True, text=True)
    assert left.stdout.strip() == "", f"still running: {left.stdout}"
    assert "Stopped." in site["log"].read_text()
