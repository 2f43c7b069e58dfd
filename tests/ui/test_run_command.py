"""The site started exactly as the README says (`bash scripts/run.sh`: Daphne and a real Celery
worker with beat, SQLite, the embedded channel layer, no eager tasks), and a whole game against
the computer played in a phone-sized browser without a reload: every computer move is played
by the worker process and must reach the page live. Then Ctrl-C stops everything.

The person's moves are chosen by the Hard bot from the page's own view (what the seat may see)
and sent through the page's own move path, so the game ends in a few hands.
"""
from __future__ import annotations

import ast
import os
import re
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from tests.support.accounts import PASSWORD
from tests.support.browser import phone_page, play_to_the_end, require_chromium, start_computer_game

pytestmark = [pytest.mark.browser, pytest.mark.backend_independent]


require_chromium()


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
    ctx, page, errors = phone_page(chromium)
    # A table against the Easy computer, to 50 points, untimed.
    table_id = start_computer_game(page, base, "rhea", PASSWORD)
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
    """(The session's run command, started again for any later test that needs it. Its
    console holds every start of the session: only what this stop printed counts.)"""
    proc = site["proc"]
    assert proc is not None and proc.poll() is None, "the run command is not running"
    printed_before = len(site["log"].read_text())
    os.killpg(proc.pid, signal.SIGINT)
    proc.wait(timeout=30)
    time.sleep(0.5)
    left = subprocess.run(["pgrep", "-g", str(proc.pid)], capture_output=True, text=True)
    assert left.stdout.strip() == "", f"still running: {left.stdout}"
    assert "Stopped." in site["log"].read_text()[printed_before:]
