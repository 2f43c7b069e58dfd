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
``--floor thread`` or ``--floor loop``
makes every move after a table's first cost nothing (``bench/ws_floor.py``: the first
move's frames go out again, one version on), in a worker thread or on the event loop: what
the socket stack alone costs a move. ``--rate 0`` plays as fast
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
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# The parts (each its own module under bench/): the servers and people, the players, the
# cost readings. Their names are imported here too, as bench/idle_sockets.py and the tests
# use them through this module.
from bench.harness import percentile  # noqa: E402
from bench.ws_cost import backend_pids, counts, cpu_seconds  # noqa: E402,F401
from bench.ws_players import TRACE, Stats, TableRun  # noqa: E402
from bench.ws_servers import (  # noqa: E402,F401
    bench_database,
    cleanup,
    django_setup,
    server_env,
    setup_tables,
    start_servers,
    start_worker,
    stop_servers,
)

MAX_RATE = 9.0  # per table: keeps each player under 100 messages in 20 s


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



def run_servers(args, run: str, sqlite_path: str | None, rate: float, eager: bool):
    """The worker (unless ``eager``) and the Daphnes on the bench database, driven for the
    run."""
    servers = []
    env = server_env(sqlite_path, eager)
    counted = tempfile.TemporaryDirectory(prefix="wsload-counts-")
    env["WSLOAD_COUNTS"] = counted.name
    if args.floor:  # the move made free: the socket stack's floor (bench/ws_floor.py)
        env.update({"WSLOAD_ASGI": "bench.ws_floor:application", "WSLOAD_FLOOR": args.floor})
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
    return stats, elapsed, cpu, used


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
    parser.add_argument("--floor", choices=("thread", "loop"),
                        help="each table's moves after its first cost nothing: the socket "
                        "stack's floor, with the free move in a worker thread or on the loop "
                        "(bench/ws_floor.py)")
    args = parser.parse_args()
    try:
        require_client()
    except CannotRun as exc:
        print(f"ws_load: cannot run: {exc}", file=sys.stderr)
        return 1
    rate = MAX_RATE if args.rate <= 0 else min(args.rate, MAX_RATE)
    # With Redis (the production set-up) deadlines go through the broker to a worker; the
    # embedded broker is for one machine's tests, so there the servers run them eagerly.
    eager = not os.environ.get("REDIS_URL")
    with bench_database("ws") as (run, sqlite_path):
        stats, elapsed, cpu, used = run_servers(args, run, sqlite_path, rate, eager)
    ms = 1000.0
    report = {
        "tables": args.tables, "servers": args.servers, "rate_per_table": rate,
        "spectators_per_table": args.spectators,
        "move": f"free, {args.floor} (bench/ws_floor.py)" if args.floor else "the real service",
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
