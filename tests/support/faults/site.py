"""The fault suite's site (tests/games/test_faults*.py): its own Redis server, PostgreSQL
cluster and supervised Celery worker, and two Daphnes, started and stopped by the test."""
from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import redis
from django.db import connection

from games.models import Heartbeat
from tests.support.servers import ROOT, DaphneServer, free_port, wait_or_kill
from tests.support.servers import shared_db_env as server_env

if TYPE_CHECKING:
    from tests.support.faults.players import Notifier

PG_BIN = next(iter(sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True)), "")


# ============================================================================ the processes


class RedisServer:
    """``redis-server`` on its own port, no persistence: a restart loses everything, as a
    crashed Redis without a disk would."""

    def __init__(self, tmp_path):
        self.port = free_port()
        self.dir = tmp_path
        self.log_path = tmp_path / "redis.log"
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        with open(self.log_path, "a") as log:
            self.proc = subprocess.Popen(
                ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1",
                 "--save", "", "--appendonly", "no", "--daemonize", "no",
                 "--dir", str(self.dir)],
                stdout=log, stderr=subprocess.STDOUT,
            )
        client = redis.Redis(port=self.port, socket_connect_timeout=0.5)
        deadline = time.monotonic() + 15
        while True:
            try:
                client.ping()
                return
            except redis.RedisError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("redis-server did not start:\n"
                                       + self.log_path.read_text()[-2000:]) from None
                time.sleep(0.05)
            finally:
                client.close()

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)


class PostgresCluster:
    """A PostgreSQL cluster of the test's own (``initdb`` on a free port), so that the test
    may stop, kill and start it: never the machine's server. Run as the ``postgres`` user
    when the test runs as root (PostgreSQL refuses root)."""

    def __init__(self):
        self.dir = Path(tempfile.mkdtemp(prefix="gin-faults-pg-"))
        self.data = self.dir / "data"
        self.log_path = self.dir / "postgres.log"
        self.port = free_port()
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres")

    @staticmethod
    def available() -> bool:
        if not PG_BIN:
            return False
        if os.geteuid() != 0:
            return True
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return False
        return shutil.which("runuser") is not None

    def _run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        command = [f"{PG_BIN}/{args[0]}", *args[1:]]
        if os.geteuid() == 0:
            command = ["runuser", "-u", "postgres", "--", *command]
        return subprocess.run(command, capture_output=True, text=True, check=check,
                              timeout=60)

    @property
    def url(self) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/gin"

    def create(self, source_url: str) -> None:
        """initdb, start, and copy the schema and rows of ``source_url`` (the test
        database, migrated, with the test's rooms) into a database ``gin``."""
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres",
                  "--no-sync", "-E", "UTF8")
        self.start()
        self._run("psql", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres",
                  "-d", "postgres", "-qc", "CREATE DATABASE gin")
        dump = subprocess.run([f"{PG_BIN}/pg_dump", "--no-owner", "--no-privileges",
                               "-d", source_url], capture_output=True, check=True,
                              timeout=60)
        load = subprocess.run([f"{PG_BIN}/psql", "-h", "127.0.0.1", "-p", str(self.port),
                               "-U", "postgres", "-d", "gin", "-q", "-v", "ON_ERROR_STOP=1"],
                              input=dump.stdout, capture_output=True, timeout=60)
        assert load.returncode == 0, load.stderr.decode()[-2000:]

    def start(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log_path), "-w", "-t", "60",
                  # fsync off: a killed server loses nothing committed (only a machine
                  # crash would); synchronous_commit stays on, as in production, or a
                  # kill -9 would lose moves already acknowledged
                  "-o", f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 "
                  "-c fsync=off -c full_page_writes=off", "start")

    def stop(self, mode: str = "immediate") -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "-t", "60", "stop",
                  check=False)

    def _pid(self) -> int | None:
        try:
            return int((self.data / "postmaster.pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None

    def signal_all(self, sig: int) -> None:
        """``sig`` to the postmaster (SIGTERM: its own shutdown) or, for SIGKILL, to it and
        every backend it started, like an OOM kill of the whole service."""
        pid = self._pid()
        if pid is None:
            return
        victims = [pid]
        if sig == signal.SIGKILL:
            for stat in glob.glob("/proc/[0-9]*/stat"):
                try:
                    fields = Path(stat).read_text().rsplit(")", 1)[1].split()
                except OSError:
                    continue
                if int(fields[1]) == pid:
                    victims.append(int(stat.split("/")[2]))
        for victim in victims:
            with contextlib.suppress(ProcessLookupError):
                os.kill(victim, sig)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and any(_alive(v) for v in victims):
            time.sleep(0.05)

    def destroy(self) -> None:
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)

    def log_tail(self, n: int = 2000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-n:]
        except OSError:
            return ""


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


class Worker:
    """``celery -A ginsite worker --beat`` in a process group of its own, under a supervisor
    thread that starts it again 2 s after it exits, whatever the cause (as run.sh and the
    systemd units of docs/operations.md do)."""

    def __init__(self, env, tmp_path):
        self.env = env
        self.tmp = tmp_path
        self.log_path = tmp_path / "worker.log"
        self.proc: subprocess.Popen | None = None
        self.starts = 0
        self.exits: list[int | None] = []  # exit codes of the runs that ended on their own
        self.killed = 0
        self._lock = threading.Lock()
        self._paused = False
        self._stopping = threading.Event()
        self._supervisor = threading.Thread(target=self._supervise, daemon=True)

    def start(self) -> None:
        self._spawn()
        self._supervisor.start()

    def _spawn(self) -> None:
        self.starts += 1
        with open(self.log_path, "a") as log:
            log.write(f"\n===== start {self.starts} =====\n")
            log.flush()
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "celery", "-A", "ginsite", "worker", "--beat",
                 "--loglevel=INFO", "--concurrency=2", "--without-mingle", "--without-gossip",
                 f"--schedule={self.tmp / f'beat-{self.starts}'}"],
                cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def _supervise(self) -> None:
        while not self._stopping.wait(0.2):
            with self._lock:
                proc = self.proc
                if proc is None or proc.poll() is None or self._paused:
                    continue
                if not getattr(proc, "killed_by_test", False):
                    self.exits.append(proc.returncode)
                _kill_group(proc)  # what the worker left behind (pool, beat)
                self.proc = None
            if self._stopping.wait(2.0):
                return
            with self._lock:
                if not self._stopping.is_set() and not self._paused and self.proc is None:
                    self._spawn()

    def pause(self) -> None:
        """No restarts until ``resume`` (every process of the site is being stopped)."""
        self._paused = True

    def resume(self) -> None:
        with self._lock:
            self._paused = False
            if self.proc is None or self.proc.poll() is not None:
                self.proc = None
                self._spawn()

    def kill(self) -> None:
        """SIGKILL to the worker, its pool and its beat, like an OOM kill of the unit."""
        with self._lock:
            proc = self.proc
            if proc is None:
                return
            proc.killed_by_test = True
            self.killed += 1
            _kill_group(proc)
            proc.wait(timeout=10)

    def stop(self) -> None:
        self._stopping.set()
        if self._supervisor.is_alive():
            self._supervisor.join(timeout=10)
        with self._lock:
            proc = self.proc
        if proc is not None and proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
            _kill_group(proc)

    def log_tail(self, n: int = 3000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-n:]
        except OSError:
            return ""


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass


@dataclass
class Site:
    redis: RedisServer
    daphnes: list[DaphneServer]
    worker: Worker
    env: dict[str, str]
    worker_env: dict[str, str]
    tmp: Path
    pg: PostgresCluster | None = None
    notifiers: list[Notifier] = field(default_factory=list)

    def wait_for_worker(self, timeout: float = 90.0) -> None:
        """Until a worker has completed a sweep since now (beat runs it every 2 s)."""
        since = time.time()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            beat = Heartbeat.objects.filter(name="sweep").values_list("at", flat=True).first()
            if beat is not None and beat.timestamp() >= since:
                return
            time.sleep(0.25)
        raise AssertionError("no worker ran the sweep:\n" + self.worker.log_tail())

    def stop_everything(self, sig: int) -> None:
        """``sig`` (SIGTERM or SIGKILL) to every process of the site at once: both Daphnes,
        the worker (pool and beat), Redis and PostgreSQL; nothing restarts them until
        ``start_everything``."""
        connection.close()  # the test's own session (a smart shutdown waits for it)
        self.worker.pause()
        procs = [srv.proc for srv in self.daphnes] + [self.redis.proc]
        worker = self.worker.proc
        for proc in procs:
            if proc is not None and proc.poll() is None:
                proc.send_signal(sig)
        if worker is not None and worker.poll() is None:
            worker.killed_by_test = True
            with contextlib.suppress(ProcessLookupError):
                os.killpg(worker.pid, sig)
        self.pg.signal_all(sig)
        for proc in [*procs, worker]:
            if proc is None:
                continue
            wait_or_kill(proc, grace=20)
        if worker is not None:
            _kill_group(worker)  # what the worker left behind
        for srv in self.daphnes:
            srv.stop()  # its log file

    def start_everything(self) -> None:
        """Start PostgreSQL, Redis, the worker and the Daphnes again on their ports, as
        their supervisors would."""
        self.pg.start()
        self.redis.start()
        self.worker.resume()
        self.daphnes = [DaphneServer(self.env, srv.log_path, port=srv.port).start()
                        for srv in self.daphnes]


@contextlib.contextmanager
def running_site(tmp_path, database_url: str | None = None, pg: PostgresCluster | None = None):
    """Redis, two Daphnes and a supervised worker; all stopped, and their logs printed
    (shown when the test fails), at the end."""
    store = RedisServer(tmp_path)
    store.start()
    env = server_env()
    env.pop("CELERY_BROKER_URL", None)
    env.update({
        "REDIS_URL": store.url,
        "CELERY_TASK_ALWAYS_EAGER": "0",  # the computer's moves go through the worker
        "DB_POOL": "8",  # as docs/operations.md recommends behind Daphne
        "CACHE_KEY_PREFIX": "faults",
        "CHANNEL_PREFIX": "asgi-faults",
        "GINSITE_VAR_DIR": str(tmp_path / "var"),
    })
    if database_url:
        env["DATABASE_URL"] = database_url
    worker_env = {k: v for k, v in env.items() if k != "DB_POOL"}
    daphnes: list[DaphneServer] = []
    worker = Worker(worker_env, tmp_path)
    site = Site(store, daphnes, worker, env, worker_env, tmp_path, pg)
    try:
        worker.start()
        for n in (1, 2):
            daphnes.append(DaphneServer(env, tmp_path / f"daphne-{n}.log").start())
        site.wait_for_worker()
        yield site
    finally:
        worker.stop()
        for srv in site.daphnes:
            srv.stop()
        store.kill()
        for srv in site.daphnes:
            print(f"--- {srv.log_path.name} ---\n" + srv.log_tail(3000))
        print("--- worker.log ---\n" + worker.log_tail(4000))
        if pg is not None:
            print("--- postgres.log ---\n" + pg.log_tail())
