"""Open sockets: what an idle connection costs one Daphne, and how fast a page's socket opens.

Starts one Daphne (PostgreSQL and the Redis pub/sub layer when ``DATABASE_URL`` /
``REDIS_URL`` are set, else the embedded default: a scratch SQLite file and the in-memory
layer), makes ``--sockets`` users in started two-player tables (two per table, 60 s a turn,
so no clock falls due during the run) with a session each, and opens their sockets at
``--rate`` a second, each on its own schedule (not waiting for the previous one):

* ``--kind table`` (default): each player's ``/ws/table/<id>/``; its time is from the start
  of the handshake to the ``snapshot`` frame (what a player waits for to see the table);
* ``--kind notify``: each user's ``/ws/notify/`` (every page of the site opens one), to its
  ``hello`` frame;
* ``--kind both``: both sockets of each user (a player's real cost: the table page has both).

Then the sockets stay open and idle (``--hold`` seconds) and the report gives Daphne's
resident memory before the first socket and after the last (``VmRSS`` of
``/proc/<pid>/status``) and their difference per socket, the open-to-first-frame times
(p50/p95/max), Daphne's CPU milliseconds per socket opened, and the failures.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/ginsite_bench DB_POOL=8 \\
    REDIS_URL=redis://127.0.0.1:6379/9 .venv/bin/python bench/idle_sockets.py --sockets 2000

The bench raises its own open-file limit (``resource.setrlimit``; Daphne inherits it). It
deletes its users and tables at the end. A run where a socket did not open prints its report
and exits 1.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ws_load  # noqa: E402  (bench/: the same servers, sessions and tables as the load run)


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def raise_file_limit(need: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = min(hard, max(soft, need)) if hard != resource.RLIM_INFINITY else max(soft, need)
    if want > soft:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))


async def open_all(targets, rate: float, timeout: float):
    """Open every (url, cookie, first frame type) at ``rate`` a second; returns the open
    sockets, the seconds from handshake to first frame of each, and the failures."""
    from websockets.asyncio.client import connect

    opened, times, failures = [], [], {}
    start = time.perf_counter()

    async def one(i, url, cookie, first):
        await asyncio.sleep(max(0.0, start + i / rate - time.perf_counter()))
        t0 = time.perf_counter()
        try:
            ws = await connect(url, origin=url.split("/ws/")[0].replace("ws://", "http://"),
                               additional_headers={"Cookie": f"sessionid={cookie}"},
                               open_timeout=timeout, max_size=2**22)
            while True:
                frame = json.loads(await asyncio.wait_for(ws.recv(), timeout))
                if frame["type"] == first:
                    break
        except Exception as exc:
            name = type(exc).__name__
            failures[name] = failures.get(name, 0) + 1
            return
        times.append(time.perf_counter() - t0)
        opened.append(ws)

    await asyncio.gather(*(one(i, *t) for i, t in enumerate(targets)))
    return opened, times, failures, time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sockets", type=int, default=2000)
    parser.add_argument("--rate", type=float, default=200.0, help="sockets opened a second")
    parser.add_argument("--kind", choices=("table", "notify", "both"), default="table")
    parser.add_argument("--hold", type=float, default=5.0,
                        help="seconds the sockets stay idle before the memory is read")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--profile", metavar="FILE",
                        help="py-spy stacks of Daphne while the sockets open (GIL holder "
                        "only; read with bench/stacks.py)")
    args = parser.parse_args()
    ws_load.require_client()
    raise_file_limit(2 * args.sockets + 512)
    sqlite_path = None
    if not os.environ.get("DATABASE_URL"):
        sqlite_path = str(ws_load.ROOT / "var" / f"bench-idle-{os.getpid()}.sqlite3")
    run = f"idle{os.getpid()}"
    ws_load.django_setup(sqlite_path)
    users = args.sockets if args.kind == "table" else (
        args.sockets if args.kind == "notify" else args.sockets // 2)
    env = ws_load.server_env(sqlite_path, eager=not os.environ.get("REDIS_URL"))
    counted = tempfile.TemporaryDirectory(prefix="idle-counts-")
    env["WSLOAD_COUNTS"] = counted.name
    servers = []
    try:
        tables = ws_load.setup_tables((users + 1) // 2, run)
        servers = ws_load.start_servers(1, env)
        proc, port = servers[0]
        base = f"ws://127.0.0.1:{port}"
        targets = []
        for table in tables:
            for cookie in table["cookies"]:
                if len(targets) >= users * (2 if args.kind == "both" else 1):
                    break
                if args.kind in ("table", "both"):
                    targets.append((f"{base}/ws/table/{table['id']}/", cookie, "snapshot"))
                if args.kind in ("notify", "both"):
                    targets.append((f"{base}/ws/notify/", cookie, "hello"))
        time.sleep(1.0)
        rss_before, cpu_before = rss_kb(proc.pid), cpu_s(proc.pid)
        sampler = None
        if args.profile:
            sampler = subprocess.Popen(
                [str(Path(sys.executable).parent / "py-spy"), "record", "--pid", str(proc.pid),
                 "--duration", str(max(1, int(len(targets) / args.rate) + 1)), "--rate", "200",
                 "--nonblocking", "--gil", "--format", "raw", "--output", args.profile],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

        async def drive():
            opened, times, failures, took = await open_all(targets, args.rate, 30.0)
            await asyncio.sleep(args.hold)
            rss_after = rss_kb(proc.pid)
            cpu = cpu_s(proc.pid) - cpu_before
            for ws in opened:
                await ws.close()
            return opened, times, failures, took, rss_after, cpu

        opened, times, failures, took, rss_after, cpu = asyncio.run(drive())
        if sampler is not None:
            sampler.wait(30)
    finally:
        ws_load.stop_servers(servers)
        counted.cleanup()
        from django.db import connection

        connection.close()
        try:
            ws_load.cleanup(run)
        finally:
            if sqlite_path:
                for suffix in ("", "-wal", "-shm"):
                    Path(sqlite_path + suffix).unlink(missing_ok=True)
    n = len(opened)
    ms = 1000.0
    report = {
        "kind": args.kind, "sockets_asked": len(targets), "sockets_open": n,
        "database": "postgresql" if os.environ.get("DATABASE_URL") else "sqlite",
        "channel_layer": "redis" if os.environ.get("REDIS_URL") else "in-memory",
        "rate_asked_per_s": args.rate, "rate_done_per_s": round(n / took, 1) if took else 0,
        "open_to_first_frame_p50_ms": round(ws_load.percentile(times, 0.5) * ms, 1),
        "open_to_first_frame_p95_ms": round(ws_load.percentile(times, 0.95) * ms, 1),
        "open_to_first_frame_max_ms": round(max(times, default=float("nan")) * ms, 1),
        "daphne_rss_before_mb": round(rss_before / 1024, 1),
        "daphne_rss_after_mb": round(rss_after / 1024, 1),
        "rss_per_socket_kb": round((rss_after - rss_before) / n, 1) if n else None,
        "daphne_cpu_ms_per_socket": round(cpu * ms / n, 2) if n else None,
        "failures": failures,
        "load_average": round(os.getloadavg()[0], 1),
    }
    ws_load.print_report(report, args.json, width=28)
    missing = len(targets) - n
    if missing:
        print(f"idle_sockets: {missing} sockets did not open: not a measurement",
              file=sys.stderr)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
