"""The server's own work in a table socket's open, without the sockets: CPU per open of the
table socket's one worker-thread call (``TableConsumer._open``: the session's user read, then
``games.services.table_open``: the access check, the seat marked connected, the clock and
the snapshot), and its statements.

``bench/idle_sockets.py`` measures a whole Daphne per open (the handshake, channels'
middleware and consumer, the channel layer's group joins, the thread hop); this isolates
the database call, so a change to the open's reads shows up without the socket stack's
noise. Opens each player's socket of ``--tables`` started two-player tables, ``--rounds``
times (the seats stay connected after the first round, as a reconnect finds them), on the
database of ``DATABASE_URL`` (else a scratch SQLite file)::

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/ginsite_bench \\
        .venv/bin/python bench/open_service.py --tables 50 --rounds 4

``--profile N`` prints the N functions with the most CPU time (cProfile) instead of timing.
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.ws_servers import (  # noqa: E402
    Statements,
    bench_database,
    service_report,
    setup_tables,
)


def opens(tables: list[dict], rounds: int, profile: int) -> dict:
    from django.conf import settings

    from core.channels import Outbox
    from core.sockets import UnresolvedUser
    from games.consumers import TableConsumer

    store = importlib.import_module(settings.SESSION_ENGINE).SessionStore
    statements = Statements()

    def one(table_id: int, cookie: str) -> None:
        consumer = TableConsumer()
        consumer.scope = {"session": store(cookie), "user": UnresolvedUser(),
                          "url_route": {"kwargs": {"table_id": table_id}}}
        consumer.table_id, consumer.invite = table_id, ""
        user, opened = consumer._open(Outbox())
        assert opened is not None and opened.allowed and opened.seat is not None, user

    work = [(t["id"], c) for t in tables for c in t["cookies"]]
    for table_id, cookie in work[:10]:  # warm-up: imports, caches, the pool
        one(table_id, cookie)
    if profile:
        import cProfile
        import pstats

        prof = cProfile.Profile(time.process_time)
        prof.enable()
        for _ in range(rounds):
            for table_id, cookie in work:
                one(table_id, cookie)
        prof.disable()
        pstats.Stats(prof).sort_stats("cumulative").print_stats(profile)
    with statements.counting():
        t0 = time.process_time()
        for _ in range(rounds):
            for table_id, cookie in work:
                one(table_id, cookie)
        cpu = time.process_time() - t0
    n = rounds * len(work)
    return {"opens": n, "cpu_us_per_open": round(cpu * 1e6 / n, 1),
            "sql_per_open": round(statements.n / n, 2)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--profile", type=int, default=0, metavar="N")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    os.environ.setdefault("DEBUG", "0")
    with bench_database("open", "op") as (run, _):
        got = opens(setup_tables(args.tables, run), args.rounds, args.profile)
    service_report(got, args.json, width=24)
    return 0


if __name__ == "__main__":
    sys.exit(main())
