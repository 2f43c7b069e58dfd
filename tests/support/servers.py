"""Real server processes: Daphne on this test's database (``shared_db_env``,
``DaphneServer``), or on its own SQLite file (``server_env``, ``daphne``: the browser tests'
servers never see DATABASE_URL or REDIS_URL, so they run the same way in both CI
configurations: SQLite, the in-memory channel layer, the local-memory cache and eager Celery
in one process)."""
from __future__ import annotations

import atexit
import contextlib
import json
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from django.db import connection

ROOT = Path(__file__).resolve().parents[2]


# The README's run command as a person starts it in a terminal, where Ctrl-C (SIGINT) reaches
# it: a suite started in the background (``pytest &``, some CI runners) passes SIGINT on as
# ignored, and a shell started with SIGINT ignored can neither trap it nor be stopped by it.
RUN_COMMAND = [sys.executable, "-c",
               "import os, signal; signal.signal(signal.SIGINT, signal.SIG_DFL); "
               "os.execvp('bash', ['bash', 'scripts/run.sh'])"]


# Seconds a server started by a test has to answer (a start takes 2-5 s on an idle machine;
# far longer when other jobs hold both cores).
START_TIMEOUT = 90.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_or_kill(proc: subprocess.Popen, grace: float = 10) -> None:
    """Wait ``grace`` seconds for ``proc`` (asked to stop) to exit, then kill it."""
    try:
        proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)


def shared_db_env() -> dict[str, str]:
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

    def start(self, timeout: float = START_TIMEOUT) -> DaphneServer:
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
            wait_or_kill(self.proc)
        if self._log is not None:
            self._log.close()
            self._log = None

    def log_tail(self, n: int = 4000) -> str:
        try:
            with open(self.log_path, errors="replace") as f:
                return f.read()[-n:]
        except OSError:
            return ""


def wait_for_other_db_sessions_to_end(seconds: float = 10) -> list[tuple]:
    """PostgreSQL ends a dead client's session asynchronously; the test database can only
    be flushed and dropped once it has. Returns the sessions still there after ``seconds``
    (client port, application, state, when it began, its last statement)."""
    if connection.vendor != "postgresql":
        return []
    deadline = time.monotonic() + seconds
    while True:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT client_port, application_name, state, backend_start, left(query, 200) "
                "FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
            rows = cursor.fetchall()
        if not rows or time.monotonic() > deadline:
            return rows
        time.sleep(0.1)


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
    server = DaphneServer(env, tmp / "daphne.log").start()
    try:
        yield server.base
    finally:
        server.stop()


def health(base: str) -> dict | None:
    try:
        with urllib.request.urlopen(base + "/healthz", timeout=2) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return json.loads(exc.read())
    except Exception:
        return None


_MIGRATED_TEMPLATE: list[Path] = []


def migrate(env: dict[str, str]) -> None:
    """``manage.py migrate`` on the new SQLite file of ``env`` (``server_env``'s
    ``SQLITE_PATH``). The first call of a session runs it into a template file; each later
    call copies that file (sqlite3's backup: the same tables and rows, a migrate from empty
    being the same every time) instead of starting Django and applying every migration again
    (4-5 s of CPU each, a dozen times a pass). Any other database: ``manage.py migrate``."""
    target = env.get("SQLITE_PATH")
    if not target or env.get("DATABASE_URL") or Path(target).exists():
        manage(env, "migrate", "--noinput", "-v0")
        return
    if not _MIGRATED_TEMPLATE:
        folder = Path(tempfile.mkdtemp(prefix="ginsite-migrated-"))
        atexit.register(shutil.rmtree, folder, True)
        template = folder / "db.sqlite3"
        manage({**env, "SQLITE_PATH": str(template)}, "migrate", "--noinput", "-v0")
        _MIGRATED_TEMPLATE.append(template)
    source = sqlite3.connect(_MIGRATED_TEMPLATE[0])
    copy = sqlite3.connect(target)
    try:
        source.backup(copy)
    finally:
        copy.close()
        source.close()


def migrated_and_set_up(env: dict[str, str], script: str) -> str:
    """The database of ``env`` migrated (``migrate``), then ``script`` run in ``manage.py
    shell``: what it printed."""
    migrate(env)
    return manage(env, "shell", "-c", script, capture_output=True, text=True).stdout


def rated_table_script(password: str) -> str:
    """The start of a ``manage.py shell`` script: anna and ben (verified, ``password``) sat at
    a rated Classic table ``t``, which has started (``users``: the two of them)."""
    return f"""
from django.contrib.auth import get_user_model
from allauth.account.models import EmailAddress
from games import services, states, timeouts
from games.models import Game, Room, Table
from games.rooms import ensure_default_rooms
ensure_default_rooms(Room)
users = []
for name in ("anna", "ben"):
    u = get_user_model().objects.create_user(name, name + "@example.com", "{password}")
    EmailAddress.objects.create(user=u, email=u.email, verified=True, primary=True)
    users.append(u)
t = services.table_create(user=users[0], room=Room.objects.get(slug="classic"), rated=True)
services.table_sit(table_id=t.pk, user=users[1])
"""


def signed_in_users_script(names) -> str:
    """The start of a ``manage.py shell`` script: users ``names`` (``<name>@example.com``, the
    name titled as display name), each signed in: ``users`` by name, and ``out`` each one's
    session key by name (a browser's ``sessionid`` cookie)."""
    return f"""
import json
from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.sessions.backends.db import SessionStore
from accounts.models import User
out = {{}}
users = {{}}
for name in {tuple(names)!r}:
    user = User.objects.create_user(name, f"{{name}}@example.com", "x-Strong-pass-1",
                                    display_name=name.title())
    users[name] = user
    store = SessionStore()
    store[SESSION_KEY] = str(user.pk)
    store[BACKEND_SESSION_KEY] = settings.AUTHENTICATION_BACKENDS[0]
    store[HASH_SESSION_KEY] = user.get_session_auth_hash()
    store.create()
    out[name] = store.session_key
"""


def printed_json(out: str, marker: str):
    """The JSON a ``manage.py shell`` script printed after ``<marker>=`` on a line."""
    line = next(x for x in out.splitlines() if x.startswith(marker + "="))
    return json.loads(line.split("=", 1)[1])


def create_verified_users(env: dict[str, str], names, password: str, **fields) -> None:
    """Users ``names`` (email ``<name>@example.com``, verified and primary) in the database
    of ``env``, through ``manage.py shell``; ``fields`` are further ``create_user`` keywords."""
    extra = "".join(f", {key}={value!r}" for key, value in fields.items())
    manage(env, "shell", "-c", (
        "from django.contrib.auth import get_user_model\n"
        "from allauth.account.models import EmailAddress\n"
        f"for name in {tuple(names)!r}:\n"
        f"    u = get_user_model().objects.create_user(name, name + '@example.com', {password!r}"
        f"{extra})\n"
        "    EmailAddress.objects.create(user=u, email=u.email, verified=True, primary=True)\n"
    ), capture_output=True)


@contextlib.contextmanager
def site_with_users(tmp: Path, names, password: str, **fields):
    """A migrated SQLite site in ``tmp`` with verified users ``names``, served by Daphne
    until the block ends; yields the base URL."""
    env = server_env(tmp)
    migrate(env)
    create_verified_users(env, names, password, **fields)
    with daphne(tmp, env) as base:
        yield base


def production_env(tmp: Path) -> dict[str, str]:
    """The environment of the run command with nothing set (no DEBUG, no SECRET_KEY)."""
    env = {
        k: v for k, v in os.environ.items()
        if k not in {"DATABASE_URL", "REDIS_URL", "DEBUG", "SECRET_KEY", "CHANNEL_LAYER",
                     "HTTPS", "DJANGO_SETTINGS_MODULE"}
    }
    env.update({
        "DJANGO_SETTINGS_MODULE": "ginsite.settings",
        "GINSITE_VAR_DIR": str(tmp / "var"),
        "STATIC_ROOT": str(tmp / "static"),
        "SQLITE_PATH": str(tmp / "db.sqlite3"),
        "CELERY_TASK_ALWAYS_EAGER": "1",
        "PYTHONUNBUFFERED": "1",
    })
    return env


class RunSite:
    """`bash scripts/run.sh` on a fixed free port with its own var/ directory (database,
    broker folders, beat schedule), as a person runs it: started, stopped with SIGINT as
    Ctrl-C would, and started again on the same port and data as often as a test needs.

    tests/ui/conftest.py's ``run_site`` is one of these for the whole session (a start costs
    seconds of CPU: Daphne, a Celery worker with beat, the collect and migrate steps); the
    browser tests on it each make their own users and tables. Read as a mapping (``site["base"]``
    ...) for the tests: ``base``, ``db`` (its SQLite file), ``tmp``, ``proc`` (the running
    command, or None), ``log`` (its console, every start appended)."""

    def __init__(self, tmp: Path):
        self.tmp = tmp
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.db = tmp / "var" / "db.sqlite3"
        self.log_path = tmp / "run.log"
        # Not the suite's DEBUG=1 either (ginsite/settings/test.py sets it in this process):
        # the README's command runs without it, and with it the service worker's version
        # would follow the files' times, which a test in another worker changes.
        self.env = {k: v for k, v in os.environ.items()
                    if k not in ("DATABASE_URL", "REDIS_URL", "CELERY_TASK_ALWAYS_EAGER",
                                 "DJANGO_SETTINGS_MODULE", "GINSITE_RELAY_URL", "DEBUG")}
        # The computer's pause before a move (0.6-1.5 s by default: a whole game against it
        # waited a minute on it) made short; its moves still go through the worker's queue
        # with a countdown.
        self.env.update({"GINSITE_VAR_DIR": str(tmp / "var"), "PORT": str(self.port),
                         "HOST": "127.0.0.1", "PYTHONUNBUFFERED": "1",
                         "GAMES_BOT_DELAY": "0.05,0.15"})
        self.proc: subprocess.Popen | None = None
        self._log = None

    def __getitem__(self, key: str):
        return {"base": self.base, "db": self.db, "tmp": self.tmp, "proc": self.proc,
                "log": self.log_path}[key]

    def start(self, timeout: float = 240) -> None:
        """Start the command and wait until /healthz says ``ok`` (the worker has run the
        sweep: it is up)."""
        if self._log is not None:  # (a run stopped from outside: its console is closed here)
            self._log.close()
        self._forget_the_worker()
        self._log = open(self.log_path, "a")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(RUN_COMMAND, cwd=ROOT, env=self.env, stdout=self._log,
                                     stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + timeout
        while True:
            body = health(self.base)
            if body and body["status"] == "ok":
                return
            if self.proc.poll() is not None or time.monotonic() > deadline:
                tail = self.log_path.read_text()[-4000:]
                self.stop()
                raise RuntimeError(f"run.sh did not come up ({body}):\n{tail}")
            time.sleep(0.5)

    def _forget_the_worker(self) -> None:
        """The last run's sweep heartbeat taken out of the database: /healthz says ``ok``
        while the last sweep is under 30 s old, so a start soon after a stop was "up" before
        its new worker was, and a test that went on at once (test_offline_browser's upload,
        counted by the worker) waited on a worker still starting on a loaded machine."""
        if not self.db.exists():
            return
        with contextlib.closing(sqlite3.connect(self.db, timeout=30)) as db, db:
            db.execute("DELETE FROM games_heartbeat WHERE name = 'sweep'")

    def log_tail(self, chars: int = 6000) -> str:
        """The end of the command's console (Daphne's and the workers' logs, every start)."""
        try:
            return self.log_path.read_text(errors="replace")[-chars:]
        except OSError as exc:
            return f"(no console: {exc})"

    def stop(self) -> None:
        """SIGINT to the command's process group, as Ctrl-C in its terminal (killed if it
        has not stopped within 30 s)."""
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGINT)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)
        if self._log is not None:
            self._log.close()
            self._log = None
        self.proc = None

    def manage_shell(self, code: str) -> str:
        """``manage.py shell -c code`` on the site's database and cache (the files run.sh's
        processes share): what it printed. A failure says why (its stderr) and what the
        site's console said last."""
        env = {**self.env, "DJANGO_SETTINGS_MODULE": "ginsite.settings",
               "GINSITE_SHARED_CACHE": "1"}
        done = subprocess.run(
            [str(ROOT / ".venv/bin/python"), "manage.py", "shell", "-c", code], cwd=ROOT,
            env=env, timeout=120, capture_output=True, text=True)
        if done.returncode:
            raise AssertionError(
                f"manage.py shell exited {done.returncode}:\n{done.stderr[-4000:]}\n"
                f"--- the site's console, last lines ---\n{self.log_tail()}")
        return done.stdout
