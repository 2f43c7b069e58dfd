"""Browser-test support: a real Daphne on its own SQLite file, and Debian's Chromium.

The server never sees DATABASE_URL or REDIS_URL, so the browser tests run the same way in
both CI configurations: SQLite, the in-memory channel layer, the local-memory cache and
eager Celery in one process.
"""
from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update",
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def server_env(tmp: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update({
        "DJANGO_SETTINGS_MODULE": "ginsite.settings",
        "DEBUG": "1",
        "SQLITE_PATH": str(tmp / "db.sqlite3"),
        "CELERY_TASK_ALWAYS_EAGER": "1",
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "PYTHONUNBUFFERED": "1",
    })
    env.update(extra)
    return env


def manage(env: dict[str, str], *args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), *args],
        cwd=ROOT, env=env, check=True, timeout=120, **kwargs,
    )


@contextlib.contextmanager
def daphne(tmp: Path, env: dict[str, str]):
    """Run Daphne on a free port until the block ends; yields the base URL."""
    port = free_port()
    log_path = tmp / "daphne.log"
    with open(log_path, "w") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port),
             "ginsite.asgi:application"],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
        )
        base = f"http://127.0.0.1:{port}"
        try:
            for _ in range(150):
                try:
                    urllib.request.urlopen(base + "/healthz", timeout=1)
                    break
                except Exception:
                    if proc.poll() is not None:
                        raise RuntimeError("daphne exited: " + log_path.read_text()) from None
                    time.sleep(0.1)
            else:
                raise RuntimeError("daphne did not answer: " + log_path.read_text())
            yield base
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)


def hidden_from(state: dict, seat: int) -> set[str]:
    """Cards this seat must not see: the stock, the knocker's face-down discard (until the
    hand ends), and the other seats' concealed cards (a knocker has shown their hand). At the
    end of the game everything is public (the record holds the seed)."""
    if state.get("phase") == "over":
        return set()
    hidden = set(state.get("stock", []))
    sd = state.get("showdown") or {}
    if sd.get("knocker") != seat:
        hidden |= set(state.get("face_down") or [])
    for other, hand in enumerate(state.get("hands", [])):
        if other == seat or sd.get("knocker") == other:
            continue
        hidden |= set(hand) - set(state["known"][other])
    return hidden


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


def play_to_the_end(page, seed: int = 7, limit: int = 600) -> int:
    """Play the page's seat until the game is over, each move chosen by the Hard bot from the
    page's own view and sent through the page's own move path; after each, wait until the
    page shows a newer version (so every computer move must arrive live). Returns the number
    of moves made."""
    from games import engine as E
    from games.bots import get_bot

    bot = get_bot("hard", seed=seed)
    decisions = 0
    while True:
        page.wait_for_function(
            "() => { const t = window.ginTable; return t && t.frame && ("
            " t.frame.table.status !== 'playing' ||"
            " (t.view && t.view.to_act === t.mySeat && !t.socket.pending.busy && !t.busy)) }",
            timeout=30000,
        )
        state = page.evaluate(
            "() => ({status: window.ginTable.frame.table.status, view: window.ginTable.view,"
            " version: window.ginTable.socket.version})"
        )
        if state["status"] != "playing":
            return decisions
        view = state["view"]
        action = str(bot.choose(view, [E.Action.parse(a) for a in view["legal_actions"]]))
        page.evaluate("a => window.ginTable.send(a)", action)
        page.wait_for_function(
            "v => window.ginTable.socket.version > v", arg=state["version"], timeout=30000
        )
        decisions += 1
        assert decisions < limit, "the game did not end"
