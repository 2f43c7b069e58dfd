"""The site started exactly as the README says (`bash scripts/run.sh`: Daphne and a real Celery
worker with beat, SQLite, the embedded channel layer, no eager tasks: tests/ui/conftest.py's
``site``, shared by the session's browser tests on the run command): a sign-up's link on its
console, and Ctrl-C stops everything.

The whole game against the computer played on it in a phone-sized browser without a reload
(every computer move played by the worker process and reaching the page live) is the first
part of test_analysis_browser's first test, which then has that game analysed: one game for
both (a whole game is the dearest step of either).
"""
from __future__ import annotations

import ast
import os
import re
import signal
import sqlite3
import subprocess
import time

import pytest

from tests.support.accounts import PASSWORD
from tests.support.browser import require_chromium

pytestmark = [pytest.mark.browser, pytest.mark.backend_independent]


require_chromium()


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


def test_the_service_status_page_is_answered_before_django(site, chromium):
    """The footer's "Service status" on the run command: Daphne answers ``/status/`` itself
    (as ``/healthz``), a page in words with the site's style, and no console error (CSP)."""
    base = site["base"]
    ctx = chromium.new_context(viewport={"width": 390, "height": 844})
    page = ctx.new_page()
    errors: list[str] = []
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    try:
        page.goto(base + "/")
        page.click("text=Service status")
        page.wait_for_url("**/status/")
        assert page.locator("h1").inner_text() == "Service status"
        assert page.locator(".status-summary").inner_text() == "Everything is working."
        assert page.locator(".status-table tr").count() == 5
        # styled by the site's sheet (the summary is bold), not the browser's defaults
        weight = page.evaluate(
            "getComputedStyle(document.querySelector('.status-summary')).fontWeight")
        assert weight == "600"
        assert not errors, errors
    finally:
        ctx.close()


def _worker_pid(site) -> int:
    # run.sh writes "<file>.new" and renames it into place (an empty file read between the
    # truncation and the write failed this test in CI).
    files = [f for f in sorted((site["tmp"] / "var").glob("run.worker.*")) if f.suffix != ".new"]
    assert len(files) == 1, files
    return int(files[0].read_text())


def _group(pgid: int) -> list[str]:
    return subprocess.run(["pgrep", "-g", str(pgid)], capture_output=True,
                          text=True).stdout.split()


def _children(pid: int) -> list[int]:
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
    return [int(x) for x in out.split()]


def _alive(pid: int) -> bool:
    """Running (a zombie is not: it waits only for its parent to read its status)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_a_worker_killed_outright_takes_its_beat_with_it(site):
    """run.sh starts the worker again when it dies; a worker killed outright (kill -9, out
    of memory) had left its embedded beat behind, which went on scheduling the sweeps beside
    the next worker's beat, even after the site was stopped."""
    old = _worker_pid(site)
    deadline = time.monotonic() + 30
    while len(children := _children(old)) < 3:  # its pool of two and its beat
        assert time.monotonic() < deadline, children
        time.sleep(0.5)
    os.kill(old, signal.SIGKILL)
    deadline = time.monotonic() + 30
    while (left := [pid for pid in children if _alive(pid)]) or _worker_pid(site) == old:
        assert time.monotonic() < deadline, f"left behind: {left}"
        time.sleep(0.5)
    assert "a Celery worker exited (status 137)" in site["log"].read_text()


def test_ctrl_c_stops_the_site_and_the_worker(site):
    """(The session's run command, started again for any later test that needs it. Its
    console holds every start of the session: only what this stop printed counts.)"""
    proc = site["proc"]
    assert proc is not None and proc.poll() is None, "the run command is not running"
    printed_before = len(site["log"].read_text())
    worker = _worker_pid(site)  # (in a process group of its own)
    os.killpg(proc.pid, signal.SIGINT)
    proc.wait(timeout=30)
    time.sleep(0.5)
    left = _group(proc.pid) + _group(worker)
    assert left == [], f"still running: {left}"
    assert "Stopped." in site["log"].read_text()[printed_before:]


def test_a_request_line_too_long_is_answered_not_dropped(site):
    """A request line over Daphne's 16 KB (a link of 20,000 characters) or a header as long
    had the connection closed with no answer (a browser's "empty response"): they are
    answered 414 and 431 (each five times: the answer must not be lost to the closing), and
    the site goes on answering."""
    import socket
    from urllib.parse import urlsplit

    where = urlsplit(site["base"])
    lines = {
        b"414": b"GET /?q=" + b"a" * 20_000 + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
        b"431": b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Long: " + b"b" * 20_000 + b"\r\n\r\n",
    }
    for status, request in [*lines.items()] * 5:
        with socket.create_connection((where.hostname, where.port), timeout=15) as conn:
            conn.sendall(request)
            answer = b""
            try:
                while chunk := conn.recv(4096):
                    answer += chunk
            except ConnectionResetError:  # (after the answer, a reset only ends the stream)
                pass
        assert answer.startswith(b"HTTP/1.1 " + status), answer[:200]
        assert b"too long" in answer
    import urllib.request

    with urllib.request.urlopen(site["base"] + "/healthz", timeout=15) as ok:
        assert ok.status == 200
