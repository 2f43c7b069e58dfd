"""Live play under load: N tables of scripted players on real sockets against Daphne.

Starts its own Daphne process(es) on 127.0.0.1 (the Redis channel layer and PostgreSQL when
``REDIS_URL`` / ``DATABASE_URL`` are set, else a scratch SQLite file and the in-memory layer),
creates two users per table with the ORM and logs them in (a session row and cookie each),
creates the tables (two people, 60 s per turn) and opens one ``/ws/table/<id>/`` socket per
player (with two servers, the two players of a table sit on different processes, so every
move crosses the Redis channel layer). Each table then plays at ``--rate`` actions a second
(the player to act sends one of ``view.legal_actions``) for ``--duration`` seconds; a finished
game is followed by a rematch on a new table. Measured:

* action round trip: the ``action`` frame sent until its ``ack`` came back,
* fan-out: the ``action`` sent until the *opponent's* ``state`` frame of the new version
  arrived (what the other person waits for),
* actions per second, error frames, unexpected closes, and lost or duplicated ``state``
  frames (every connection must see each version exactly once after its snapshot).

Run (PostgreSQL and Redis up; use a scratch database)::

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/ginsite_bench DB_POOL=8 \\
    REDIS_URL=redis://127.0.0.1:6379/9 .venv/bin/python bench/ws_load.py --tables 50

(The servers inherit the environment: ``DB_POOL`` gives them psycopg's connection pool, as
recommended behind Daphne; without it every database call opens a new connection.)

Options: ``--tables 200 --rate 1 --duration 30 --servers 2 --spectators 0 --json``.
``--spectators K`` adds K anonymous spectator sockets to each table (a table watched by
several people, or a player's second tab: the frames of one audience go to several sockets);
their frames are checked for gaps and duplicates like the players'. ``--profile FILE``
samples the first Daphne with py-spy (a development requirement) over the measured window,
only the thread holding the GIL (where its Python time goes), and writes its stacks to FILE
(collapsed, one line per stack with its sample count: read it with ``bench/stacks.py``).
``--rate 0`` plays as fast
as the documented flood limit allows (9 actions a second per table). Everything stays on the
loopback interface; the run stops by itself (hard limit: duration + 120 s), stops the servers
it started and deletes its users and tables. With Redis, turn deadlines go through the broker
to a Celery worker the bench starts (as in production); on the embedded default the servers
run Celery eagerly (each move's deadline check, a no-op until the deadline, runs in-process).

A run that cannot measure says so on stderr and exits 1: without the development requirements
(the ``websockets`` client) before starting anything, and after the run when a table could not
connect or no action was played (the report is printed, but is not a measurement).
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.harness import percentile  # noqa: E402

COUNTED = ROOT / "bench" / "counted.py"  # runs a server with SQL and channel-layer counters
MAX_RATE = 9.0  # per table: keeps each player under 100 messages in 20 s
SESSIONS: list[str] = []
TRACE: list | None = [] if os.environ.get("WSLOAD_TRACE") else None
BENCH_SECRET_KEY = "bench-" + secrets.token_urlsafe(48)
# Sockets opening at once: a browser crowd arrives spread out, and Daphne drops a handshake
# the application has not accepted within 5 s (each accept costs database work).
CONNECTING = asyncio.Semaphore(int(os.environ.get("WSLOAD_CONNECTING", "8")))


class CannotRun(Exception):
    """The benchmark cannot run, or did not measure what was asked: the message says why.
    ``main`` prints it and exits 1 (never a report of "0 actions" with exit status 0)."""


def require_client() -> None:
    """The socket client is a development requirement: check it before starting anything."""
    try:
        import websockets.asyncio.client  # noqa: F401
    except ImportError as exc:
        raise CannotRun(f"the WebSocket client is missing ({exc}); install the development "
                        "requirements: .venv/bin/pip install -r requirements-dev.txt") from None


def failure(stats: Stats, tables: int) -> str | None:
    """Why a finished run measured nothing worth reporting, or None. Every table must have
    connected (fewer tables is a lighter load than the one asked for) and actions must have
    been played and acknowledged."""
    failed = {k: v for k, v in stats.errors.items() if k.startswith("connect:")}
    if failed:
        causes = ", ".join(f"{k.split(':', 1)[1]} x{v}" for k, v in sorted(failed.items()))
        return f"{sum(failed.values())} of {tables} tables could not connect ({causes})"
    if stats.actions == 0:
        return "no action was played and acknowledged (errors: " + \
            (", ".join(f"{k} x{v}" for k, v in sorted(stats.errors.items())) or "none") + ")"
    return None


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
             "ginsite.asgi:application"],
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


# --- The players -------------------------------------------------------------------------


class Stats:
    def __init__(self):
        self.rtt: list[float] = []
        self.fanout: list[float] = []
        self.actions = 0
        self.errors: dict[str, int] = {}
        self.closes = 0
        self.lost = 0
        self.duplicated = 0
        self.games = 0
        self.frames = 0
        self.connects: list[float] = []
        self.measure_from = float("inf")  # perf_counter() after the warm-up


class Conn:
    """One player's socket: tracks the newest state, checks versions for gaps/duplicates."""

    def __init__(self, ws, stats: Stats, table: TableRun, seat: int | None):
        self.ws, self.stats, self.table, self.seat = ws, stats, table, seat
        self.latest = None
        self.seen: set[int] = set()
        self.base: int | None = None
        self.acks: dict[str, asyncio.Future] = {}
        self.closed = False

    async def read(self):
        try:
            async for text in self.ws:
                now = time.perf_counter()
                f = json.loads(text)
                self.stats.frames += 1
                kind = f["type"]
                if kind == "snapshot":
                    if self.base is None:
                        self.base = f["version"]
                    self._show(f)
                elif kind == "state":
                    v = f["version"]
                    if v in self.seen:
                        self.stats.duplicated += 1
                    self.seen.add(v)
                    self.table.state_arrived(self.seat, v, now)
                    self._show(f)
                elif kind == "ack":
                    fut = self.acks.pop(f.get("id"), None)
                    if fut and not fut.done():
                        fut.set_result((f, now))
                elif kind == "error":
                    if os.environ.get("WSLOAD_DEBUG"):
                        print(self.seat, f, self.latest["version"], file=sys.stderr)
                    self.stats.errors[f["code"]] = self.stats.errors.get(f["code"], 0) + 1
                    fut = self.acks.pop(f.get("id"), None)
                    if fut and not fut.done():
                        fut.set_result((f, now))
        except Exception:
            pass
        finally:
            self.closed = True
            self.table.changed.set()

    def _show(self, f):
        if self.latest is None or f["version"] > self.latest["version"]:
            self.latest = f
            self.table.changed.set()

    def account(self, final: int) -> None:
        """Versions after the first snapshot that never arrived."""
        if self.base is not None:
            self.stats.lost += sum(1 for v in range(self.base + 1, final + 1)
                                   if v not in self.seen)


class TableRun:
    def __init__(self, info, ws_urls, stats: Stats, rate: float, until: float, rng,
                 spectators: int = 0):
        self.info, self.ws_urls, self.stats = info, ws_urls, stats
        self.spectators = spectators
        self.watchers: list[Conn] = []  # the spectators' sockets (not players)
        self.interval = 1.0 / rate
        self.until, self.rng = until, rng
        self.changed = asyncio.Event()
        self.pending: dict[int, float] = {}  # version -> send time, for the fan-out
        self.conns: list[Conn] = []

    def state_arrived(self, seat: int, version: int, now: float) -> None:
        sent = self.pending.get(version)
        if sent is not None and seat is not None and seat != self.mover.get(version):
            if sent >= self.stats.measure_from:
                self.stats.fanout.append(now - sent)
            self.pending.pop(version, None)

    async def connect(self, table_id: int):
        from websockets.asyncio.client import connect

        self.conns, self.readers, self.mover = [], [], {}
        for seat in (0, 1):
            url = self.ws_urls[(table_id + seat) % len(self.ws_urls)]
            cookie = f"sessionid={self.info['cookies'][seat]}"
            t0 = time.perf_counter()
            async with CONNECTING:
                ws = await connect(f"{url}/ws/table/{table_id}/",
                                   origin=url.replace("ws://", "http://"),
                                   additional_headers={"Cookie": cookie},
                                   open_timeout=30, max_size=2**22)
            self.stats.connects.append(time.perf_counter() - t0)
            conn = Conn(ws, self.stats, self, seat)
            self.conns.append(conn)
            self.readers.append(asyncio.create_task(conn.read()))
        self.watchers = []
        for n in range(self.spectators):
            url = self.ws_urls[(table_id + n) % len(self.ws_urls)]
            async with CONNECTING:
                ws = await connect(f"{url}/ws/table/{table_id}/",
                                   origin=url.replace("ws://", "http://"),
                                   open_timeout=30, max_size=2**22)
            watcher = Conn(ws, self.stats, self, None)
            self.watchers.append(watcher)
            self.readers.append(asyncio.create_task(watcher.read()))

    async def wait(self, pred, timeout=10.0):
        deadline = time.monotonic() + timeout
        while not pred():
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            self.changed.clear()
            try:
                await asyncio.wait_for(self.changed.wait(), min(left, 1.0))
            except TimeoutError:
                pass
        return True

    async def close(self):
        final = max((c.latest["version"] for c in self.conns if c.latest), default=0)
        every = self.conns + self.watchers
        # Frames still on their way when the run ends are late, not lost: give them time.
        await self.wait(lambda: all(c.closed or (c.latest and c.latest["version"] >= final)
                                    for c in every), timeout=5.0)
        for c in every:
            c.account(final)
            await c.ws.close()
        for r in self.readers:
            r.cancel()

    async def run(self):
        """Play until ``until`` (``connect`` has been awaited for every table first)."""
        table_id = self.info["id"]
        await asyncio.sleep(self.rng.random() * self.interval)  # spread the tables out
        next_at = time.monotonic()
        n = 0
        expect = 0  # the version the last ack announced (its state frames may lag the ack)
        while time.monotonic() < self.until:
            if any(c.closed for c in self.conns):
                self.stats.closes += 1
                return
            ok = await self.wait(lambda e=expect: all(c.latest and c.latest["version"] >= e
                                                      for c in self.conns))
            if not ok:  # a lost frame: ask for snapshots, as the protocol says
                for c in self.conns:
                    await c.ws.send(json.dumps({"type": "snapshot"}))
                continue
            latest = self.conns[0].latest
            if latest["table"]["status"] != "playing":
                table_id = await self.rematch(table_id)
                if table_id is None:
                    return
                expect = 0
                continue
            seat = next((c.seat for c in self.conns if c.latest["view"]["legal_actions"]), None)
            if seat is None:
                await asyncio.sleep(0.01)
                continue
            conn = self.conns[seat]
            view, version = conn.latest["view"], conn.latest["version"]
            delay = next_at - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            if time.monotonic() >= self.until:
                break
            next_at = max(next_at + self.interval, time.monotonic())
            n += 1
            mid = f"l{table_id}-{n}"
            fut = asyncio.get_running_loop().create_future()
            conn.acks[mid] = fut
            self.mover[version + 1] = seat
            sent = time.perf_counter()
            self.pending[version + 1] = sent
            await conn.ws.send(json.dumps({"type": "action", "action": choose(view, self.rng),
                                           "version": version, "id": mid}))
            try:
                frame, at = await asyncio.wait_for(fut, 10)
            except TimeoutError:
                self.stats.errors["no_ack"] = self.stats.errors.get("no_ack", 0) + 1
                continue
            if frame["type"] == "ack":
                if sent >= self.stats.measure_from:
                    self.stats.rtt.append(at - sent)
                    self.stats.actions += 1
                    if TRACE is not None:
                        TRACE.append((sent, at - sent, self.info["id"]))
                expect = frame["version"]
        await self.close()

    async def rematch(self, table_id):
        self.stats.games += 1
        for c in self.conns:
            await c.ws.send(json.dumps({"type": "rematch", "accept": True}))
        ok = await self.wait(lambda: all(
            c.latest["table"]["rematch"]["table_id"] for c in self.conns))
        new_id = self.conns[0].latest["table"]["rematch"]["table_id"] if ok else None
        await self.close()
        if new_id is None:
            self.stats.errors["no_rematch"] = self.stats.errors.get("no_rematch", 0) + 1
            return None
        # Seats move one round in a rematch.
        self.info = {"id": new_id, "cookies": self.info["cookies"][::-1]}
        await self.connect(new_id)
        return new_id


def choose(view, rng) -> str:
    """Gin when possible, knock when possible, else a greedy draw and discard."""
    from games.engine import best_melds, deadwood

    legal, hand = view["legal_actions"], view["hand"]
    for a in legal:
        if a.startswith(("big_gin", "gin:", "knock:", "accept_layoffs")):
            return a
    if "pass" in legal:
        return "pass"
    if "draw:stock" in legal:
        return "draw:stock"
    discards = [a for a in legal if a.startswith("discard:")]
    if discards:
        # The highest unmelded card (one meld search: the client shares the machine with the
        # servers it measures, so it should cost little); the exact best when all are melded.
        loose = best_melds(hand).deadwood_cards
        allowed = {a[8:] for a in discards}
        throw = [c for c in loose if c.text in allowed]
        if throw:
            return "discard:" + max(throw, key=lambda c: (c.value, c.rank)).text
        return min(discards, key=lambda a: deadwood([c for c in hand if c != a[8:]]))
    return rng.choice(legal)


def counts(folder: str | None) -> dict[str, int]:
    """SQL statements and channel-layer calls made so far by the servers and the worker
    (``bench/counted.py`` writes each process's counters to ``folder``)."""
    total = {"sql": 0, "layer": 0}
    for path in Path(folder).glob("*.json") if folder else ():
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        for key in total:
            total[key] += data.get(key, 0)
    return total


def backend_pids() -> list[int]:
    """The PostgreSQL backends serving the benchmark's database (the servers' pooled
    connections, the worker's, the bench's own): the other databases of a shared server
    are not this run's cost. Empty on SQLite."""
    from django.db import connection

    if connection.vendor != "postgresql":
        return []
    with connection.cursor() as cursor:
        cursor.execute("SELECT pid FROM pg_stat_activity WHERE datname = current_database()")
        pids = [row[0] for row in cursor.fetchall()]
    connection.close()
    return pids


def cpu_seconds(pids: dict[str, list[int]]) -> dict[str, float]:
    """CPU time (user + system) used so far by each named group of processes; the group
    ``redis`` (when the run uses Redis) is every redis-server process on the machine (a
    shared Redis also counts what others do with it: run on a quiet machine)."""
    tick = os.sysconf("SC_CLK_TCK")
    groups = {name: list(p) for name, p in pids.items()}
    if os.environ.get("REDIS_URL"):
        groups["redis"] = []
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    comm = Path(f"/proc/{entry}/comm").read_text().strip()
                except OSError:
                    continue
                if comm == "redis-server":
                    groups["redis"].append(int(entry))
    used = {}
    for name, members in groups.items():
        total = 0.0
        for pid in members:
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            total += (int(fields[11]) + int(fields[12])) / tick
        used[name] = total
    return used


async def drive(tables, ws_urls, rate, duration, seed, warmup=3.0,
                pids=None, counted=None, spectators=0,
                profile=None) -> tuple[Stats, float, dict[str, float], dict]:
    stats = Stats()
    rng = random.Random(seed)
    runs = [TableRun(t, ws_urls, stats, rate, 0.0, random.Random(rng.random()), spectators)
            for t in tables]
    # Everybody sits down first; the measured period is play only (connects go on during it
    # only for rematches, as on a live site).
    connected = await asyncio.gather(*(r.connect(r.info["id"]) for r in runs),
                                     return_exceptions=True)
    for c in connected:
        if isinstance(c, BaseException):
            name = f"connect:{type(c).__name__}"
            stats.errors[name] = stats.errors.get(name, 0) + 1
    runs = [r for r, c in zip(runs, connected, strict=True) if not isinstance(c, BaseException)]
    until = time.monotonic() + warmup + duration
    for r in runs:
        r.until = until
    started = time.monotonic()
    playing = asyncio.gather(*(r.run() for r in runs), return_exceptions=True)
    # The first seconds warm up (first queries of each connection, caches): not measured.
    await asyncio.sleep(warmup)
    stats.measure_from = time.perf_counter()
    pids = dict(pids or {})
    postgres = await asyncio.to_thread(backend_pids)
    if postgres:
        pids["postgres"] = postgres
    sampler = None
    if profile and pids.get("daphne"):
        sampler = subprocess.Popen(
            [str(Path(sys.executable).parent / "py-spy"), "record", "--pid",
             str(pids["daphne"][0]), "--duration", str(int(duration)), "--rate", "200",
             "--nonblocking", "--gil", "--format", "raw", "--output", profile],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    cpu_before, measured_at = cpu_seconds(pids or {}), time.monotonic()
    counts_before = counts(counted)
    cpu: dict[str, float] = {}
    used: dict = {}

    async def read_cpu():
        await asyncio.sleep(max(0.0, until - time.monotonic()))
        after = cpu_seconds(pids or {})
        counts_after = counts(counted)
        actions = stats.actions
        window = time.monotonic() - measured_at
        cpu.update({name: round(100 * (after[name] - cpu_before.get(name, 0.0)) / window, 1)
                    for name in after})
        # The same window's cost per acknowledged action (the actions acknowledged by the
        # window's end; those in flight then are a few of thousands).
        if actions:
            used["cpu_ms"] = {name: round(1000 * (after[name] - cpu_before.get(name, 0.0))
                                          / actions, 2) for name in after}
            used.update({k: round((counts_after[k] - counts_before[k]) / actions, 2)
                         for k in counts_after})

    reading = asyncio.ensure_future(read_cpu())
    results = await asyncio.wait_for(playing, duration + 120)
    await reading
    if sampler is not None:
        await asyncio.to_thread(sampler.wait, 30)
    for r in results:
        if isinstance(r, BaseException):
            name = f"client:{type(r).__name__}"
            stats.errors[name] = stats.errors.get(name, 0) + 1
            if os.environ.get("WSLOAD_DEBUG"):
                print(repr(r), file=sys.stderr)
    return stats, time.monotonic() - started - warmup, cpu, used


def print_report(report: dict, as_json: bool, width: int = 20) -> None:
    """One JSON line, or one ``key: value`` line each."""
    if as_json:
        print(json.dumps(report))
    else:
        for key, value in report.items():
            print(f"{key:>{width}}: {value}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--rate", type=float, default=1.0,
                        help="actions a second per table (0: as fast as allowed)")
    parser.add_argument("--duration", type=float, default=20.0)
    parser.add_argument("--servers", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--spectators", type=int, default=0,
                        help="anonymous spectator sockets per table (default 0)")
    parser.add_argument("--warmup", type=float, default=3.0,
                        help="seconds of play before measuring (default 3)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--profile", metavar="FILE",
                        help="py-spy stacks of the first Daphne over the measured window")
    args = parser.parse_args()
    try:
        require_client()
    except CannotRun as exc:
        print(f"ws_load: cannot run: {exc}", file=sys.stderr)
        return 1
    rate = MAX_RATE if args.rate <= 0 else min(args.rate, MAX_RATE)
    sqlite_path = None
    if not os.environ.get("DATABASE_URL"):
        sqlite_path = str(ROOT / "var" / f"bench-ws-{os.getpid()}.sqlite3")
    run = f"{os.getpid()}"
    django_setup(sqlite_path)
    servers = []
    # With Redis (the production set-up) deadlines go through the broker to a worker; the
    # embedded broker is for one machine's tests, so there the servers run them eagerly.
    eager = not os.environ.get("REDIS_URL")
    env = server_env(sqlite_path, eager)
    counted = tempfile.TemporaryDirectory(prefix="wsload-counts-")
    env["WSLOAD_COUNTS"] = counted.name
    try:
        tables = setup_tables(args.tables, run)
        if not eager:
            servers.append((start_worker(env), None))
        servers += start_servers(args.servers, env)
        ws_urls = [f"ws://127.0.0.1:{port}" for _, port in servers if port]
        pids = {"bench client": [os.getpid()]}
        for proc, port in servers:
            pids.setdefault("daphne" if port else "celery worker", []).append(proc.pid)
        stats, elapsed, cpu, used = asyncio.run(drive(tables, ws_urls, rate, args.duration,
                                                      args.seed, args.warmup, pids,
                                                      env["WSLOAD_COUNTS"], args.spectators,
                                                      args.profile))
    finally:
        stop_servers(servers)
        counted.cleanup()
        from django.db import connection

        connection.close()
        try:
            cleanup(run)
        finally:
            if sqlite_path:
                for suffix in ("", "-wal", "-shm"):
                    Path(sqlite_path + suffix).unlink(missing_ok=True)
    ms = 1000.0
    report = {
        "tables": args.tables, "servers": args.servers, "rate_per_table": rate,
        "spectators_per_table": args.spectators,
        "database": "postgresql" if os.environ.get("DATABASE_URL") else "sqlite",
        "channel_layer": "redis" if os.environ.get("REDIS_URL") else "in-memory",
        "deadlines": "eager (in the server)" if eager else "celery worker",
        "duration_s": round(elapsed, 1), "actions": stats.actions,
        "actions_per_s": round(stats.actions / elapsed, 1) if elapsed else 0,
        "rtt_p50_ms": round(percentile(stats.rtt, 0.5) * ms, 1),
        "rtt_p99_ms": round(percentile(stats.rtt, 0.99) * ms, 1),
        "fanout_p50_ms": round(percentile(stats.fanout, 0.5) * ms, 1),
        "fanout_p99_ms": round(percentile(stats.fanout, 0.99) * ms, 1),
        "connect_p50_ms": round(percentile(stats.connects, 0.5) * ms, 1),
        "connect_p99_ms": round(percentile(stats.connects, 0.99) * ms, 1),
        "errors": stats.errors, "unexpected_closes": stats.closes,
        "lost_frames": stats.lost, "duplicated_frames": stats.duplicated,
        "games_finished": stats.games, "frames": stats.frames,
        "cpu_percent": cpu,
        # Per acknowledged action, in the measured window: CPU milliseconds of each kind of
        # process, SQL statements and channel-layer calls (send/group_send) of the servers
        # and the worker together.
        "cpu_ms_per_move": used.get("cpu_ms", {}),
        "sql_per_move": used.get("sql"),
        "layer_calls_per_move": used.get("layer"),
    }
    if TRACE:
        # WSLOAD_TRACE=<file>: every action's send time (s from the first), round trip, table.
        t0 = min(t for t, _, _ in TRACE)
        with open(os.environ["WSLOAD_TRACE"], "w") as out:
            for t, rtt, table_id in sorted(TRACE):
                out.write(f"{t - t0:.3f} {rtt * ms:.1f} {table_id}\n")
    print_report(report, args.json)
    problem = failure(stats, args.tables)
    if problem:
        print(f"ws_load: the run failed, its figures are not a measurement: {problem}",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
