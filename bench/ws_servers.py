"""The servers and the people of ``bench/ws_load.py`` (and ``bench/idle_sockets.py``): Django
set up against the run's database, two users per table logged in (a session row each), the
started tables, their cleanup, and the Daphne (and Celery worker) processes the run starts,
each under ``bench/counted.py``.
"""
from __future__ import annotations

import contextlib
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COUNTED = ROOT / "bench" / "counted.py"  # runs a server with SQL and channel-layer counters
SESSIONS: list[str] = []
BENCH_SECRET_KEY = "bench-" + secrets.token_urlsafe(48)

# --- Setup with the ORM ------------------------------------------------------------------


def django_setup(sqlite_path: str | None) -> None:
    import django

    os.environ["DJANGO_SETTINGS_MODULE"] = "ginsite.settings"
    # The sessions made here must verify on the servers (the auth hash uses the key).
    os.environ["SECRET_KEY"] = BENCH_SECRET_KEY
    if sqlite_path:
        os.environ["SQLITE_PATH"] = sqlite_path
    from ginsite.localfiles import prepare

    prepare()
    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def _session(user) -> str:
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore

    store = SessionStore()
    store[SESSION_KEY] = str(user.pk)
    store[BACKEND_SESSION_KEY] = settings.AUTHENTICATION_BACKENDS[0]
    store[HASH_SESSION_KEY] = user.get_session_auth_hash()
    store.save()
    SESSIONS.append(store.session_key)
    return store.session_key


def setup_tables(count: int, run: str) -> list[dict]:
    """``count`` started two-player tables; returns [{id, cookies: [c0, c1]}]."""
    from django.contrib.auth import get_user_model

    from games import services
    from games.models import Room
    from games.rooms import ensure_default_rooms

    ensure_default_rooms(Room)
    room = Room.objects.get(slug="classic")
    User = get_user_model()
    tables = []
    for i in range(count):
        a = User.objects.create_user(f"wsload-{run}-{i}a", password=None)
        b = User.objects.create_user(f"wsload-{run}-{i}b", password=None)
        table = services.table_create(user=a, room=room, seat_count=2, seconds_per_turn=60,
                                      target=50)
        services.table_sit(table_id=table.pk, user=b)
        tables.append({"id": table.pk, "cookies": [_session(a), _session(b)]})
    return tables


def cleanup(run: str) -> None:
    from django.contrib.auth import get_user_model
    from django.contrib.sessions.models import Session

    from games.models import Game, Table

    users = get_user_model().objects.filter(username__startswith=f"wsload-{run}-")
    tables = Table.objects.filter(seats__user__in=users).distinct()
    Game.objects.filter(table__in=tables).delete()
    tables.update(rematch_table=None)
    tables.delete()
    Session.objects.filter(session_key__in=SESSIONS).delete()
    users.delete()


# --- Servers -----------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def server_env(sqlite_path: str | None, eager: bool) -> dict[str, str]:
    env = dict(os.environ)
    # Production settings (DEBUG off: no query log, no debug wrappers), on plain http.
    env.update({"DJANGO_SETTINGS_MODULE": "ginsite.settings", "DEBUG": "0",
                "SECRET_KEY": BENCH_SECRET_KEY,
                "SECURE_SSL_REDIRECT": "0", "LOG_LEVEL": "WARNING",
                "CELERY_TASK_ALWAYS_EAGER": "1" if eager else "0",
                "ALLOWED_HOSTS": "127.0.0.1"})
    if sqlite_path:
        env["SQLITE_PATH"] = sqlite_path
    return env


def start_worker(env: dict[str, str]) -> subprocess.Popen:
    """The Celery worker that applies turn deadlines, as in production."""
    return subprocess.Popen(
        [sys.executable, str(COUNTED), "celery", "-A", "ginsite", "worker", "--pool=solo",
         "--without-mingle", "--without-gossip", "--loglevel=WARNING"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )


def start_servers(count: int, env: dict[str, str]) -> list[tuple[subprocess.Popen, int]]:
    servers = []
    for _ in range(count):
        port = free_port()
        log = subprocess.DEVNULL
        if os.environ.get("WSLOAD_DEBUG"):
            log = open(ROOT / "var" / f"ws-load-{port}.log", "w")  # noqa: SIM115
        proc = subprocess.Popen(
            [sys.executable, str(COUNTED), "daphne", "-b", "127.0.0.1", "-p", str(port),
             env.get("WSLOAD_ASGI", "ginsite.asgi:application")],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
        )
        servers.append((proc, port))
    for proc, port in servers:
        for _ in range(300):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/play/rooms.json", timeout=2)
                break
            except OSError:
                if proc.poll() is not None:
                    raise SystemExit("a Daphne process exited at start") from None
                time.sleep(0.1)
    return servers


def stop_servers(servers) -> None:
    for proc, _ in servers:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
    for proc, _ in servers:
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


class Statements:
    """The SQL statements this process sends while ``counting()`` is open (``n``, the count
    so far), for statements per call: ``with statements.counting(): ...``."""

    def __init__(self) -> None:
        self.n = 0

    def _count(self, execute, sql, params, many, context):
        self.n += 1
        return execute(sql, params, many, context)

    def counting(self):
        from django.db import connection

        return connection.execute_wrapper(self._count)


def service_report(got: dict, as_json: bool, width: int) -> None:
    """A service bench's figures, with the database they ran on and the machine's load
    average (one JSON line with ``--json``, else one line each)."""
    from bench.ws_load import print_report

    print_report({"database": "postgresql" if os.environ.get("DATABASE_URL") else "sqlite",
                  **got, "load_average": round(os.getloadavg()[0], 1)}, as_json, width=width)


@contextlib.contextmanager
def bench_database(name: str, run_prefix: str = ""):
    """Django set up on ``DATABASE_URL`` or, without it, a scratch SQLite file; yields
    ``(run, sqlite_path)`` (``run`` names this process's users and tables); at the end the
    run's rows are deleted and the scratch file removed."""
    sqlite_path = None
    if not os.environ.get("DATABASE_URL"):
        sqlite_path = str(ROOT / "var" / f"bench-{name}-{os.getpid()}.sqlite3")
    run = f"{run_prefix}{os.getpid()}"
    django_setup(sqlite_path)
    try:
        yield run, sqlite_path
    finally:
        from django.db import connection

        connection.close()
        try:
            cleanup(run)
        finally:
            if sqlite_path:
                for suffix in ("", "-wal", "-shm"):
                    Path(sqlite_path + suffix).unlink(missing_ok=True)
