"""Fixtures of the games tests: the default rooms (transactional tests flush the data
migration's rows) and helpers to build and drive tables through the services."""
from __future__ import annotations

import os
import random
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
from django.db import connection

from games import services, states, timeouts
from games.models import Room, Table
from games.rooms import ensure_default_rooms

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def rooms(db):
    ensure_default_rooms(Room)
    return {r.slug: r for r in Room.objects.all()}


@pytest.fixture
def two_players(make_user):
    return make_user("alice"), make_user("bob")


def start_table(room, users, *, seconds=30, target=None, seats=None):
    """A started table with ``users`` seated in order (through the services)."""
    table = services.table_create(
        user=users[0], room=room, seat_count=seats or len(users), seconds_per_turn=seconds,
        target=target,
    )
    for u in users[1:]:
        services.table_sit(table_id=table.pk, user=u)
    return Table.objects.get(pk=table.pk)


def state_of(table_id):
    return states.load(Table.objects.get(pk=table_id).state)


def play_one(table_id, users_by_seat, rng=None):
    """The seat to act plays a legal move (random with ``rng``, else the safe move)."""
    table = Table.objects.get(pk=table_id)
    state = states.load(table.state)
    seat = state.to_act
    if rng is None:
        text = timeouts.safe_action(state)
    else:
        from games import engine as E

        text = str(rng.choice(E.legal_actions(state)))
    return services.table_act(
        table_id=table_id, user=users_by_seat[seat], action=text,
        expected_version=table.version,
    )


@pytest.fixture
def rng():
    return random.Random(7)


# ------------------------------------------------------------------------- real servers


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def server_env() -> dict[str, str]:
    """The environment of a server process that uses this test's database (call inside a
    transactional test) and the same Redis as the suite, if any."""
    env = dict(os.environ)
    env.update({
        "DJANGO_SETTINGS_MODULE": "ginsite.settings",
        "DEBUG": "1",
        # Bot moves and deadline checks run in the server process (no worker needed); a
        # deadline check that is not yet due does nothing.
        "CELERY_TASK_ALWAYS_EAGER": "1",
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "PYTHONUNBUFFERED": "1",
    })
    db = connection.settings_dict
    if db["ENGINE"].endswith("sqlite3"):
        env.pop("DATABASE_URL", None)
        env["SQLITE_PATH"] = str(db["NAME"])
    else:  # the test database, on the same server as DATABASE_URL
        parts = urlsplit(os.environ["DATABASE_URL"])
        env["DATABASE_URL"] = urlunsplit(parts._replace(path="/" + db["NAME"]))
    return env


class DaphneServer:
    """``daphne -b 127.0.0.1 -p <port> ginsite.asgi:application`` as a child process."""

    def __init__(self, env: dict[str, str], log_path, port: int | None = None):
        self.env = env
        self.port = port or free_port()
        self.log_path = log_path
        self.proc = None
        self._log = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_base(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self, timeout: float = 30.0) -> DaphneServer:
        self._log = open(self.log_path, "a")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(self.port),
             "ginsite.asgi:application"],
            cwd=ROOT, env=self.env, stdout=self._log, stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("daphne exited:\n" + self.log_tail())
            try:
                urllib.request.urlopen(self.base + "/play/rooms.json", timeout=2).read()
                return self
            except urllib.error.HTTPError:
                return self  # it answers
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError("daphne did not start:\n" + self.log_tail())

    def kill(self) -> None:
        """SIGKILL: no graceful anything, like a crashed or OOM-killed server."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        if self._log is not None:
            self._log.close()
            self._log = None

    def log_tail(self, n: int = 4000) -> str:
        try:
            with open(self.log_path, errors="replace") as f:
                return f.read()[-n:]
        except OSError:
            return ""


def wait_for_other_db_sessions_to_end() -> None:
    """PostgreSQL ends a dead client's session asynchronously; the test database can only
    be flushed and dropped once it has."""
    if connection.vendor != "postgresql":
        return
    for _ in range(100):
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
            if cursor.fetchone()[0] == 0:
                return
        time.sleep(0.1)
