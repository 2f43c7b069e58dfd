"""Where PostgreSQL's CPU goes in a move: the server's own user + system time for each
statement of ``table_act`` (the row lock, the action's INSERT, the table's UPDATE, the
commit), read from PostgreSQL's ``log_statement_stats`` blocks in its log file (a
prepared statement's parse, bind and execute counted together).

``bench/ws_load.py`` measures PostgreSQL's CPU per move as a whole (every backend of the
run's database, from ``/proc``); this splits it by statement. It plays ``--moves`` moves
in-process (``bench/move_service.py``'s players) on the database of ``DATABASE_URL``, with
this session's statements logged with their resource usage (a superuser's ``SET``: the
bench's role must be one), then reads the lines its backend wrote to ``--log`` (a local
server's log file, readable by the bench)::

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/ginsite_bench \\
        .venv/bin/python bench/pg_move_cost.py --moves 1000 \\
        --log /var/log/postgresql/postgresql-15-main.log

Prints, per kind of statement, how many ran and the server CPU microseconds per move; the
statements outside ``table_act`` (the players reading the table to choose a move) are
left out.
"""
from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.move_service import play  # noqa: E402
from bench.ws_load import print_report  # noqa: E402
from bench.ws_servers import bench_database  # noqa: E402

STATS = re.compile(r"!\s+([0-9.]+) s user, ([0-9.]+) s system, ([0-9.]+) s elapsed")


def kind_of(sql: str) -> str | None:
    """The statement's part in a move, or None for the players' own reads."""
    text = " ".join(sql.split()).upper()
    if text.startswith(("BEGIN", "START TRANSACTION")):
        return "begin"
    if text.startswith("COMMIT"):
        return "commit"
    if text.startswith("SELECT") and "FOR UPDATE" in text:
        return "row lock (SELECT ... FOR UPDATE)"
    if text.startswith('INSERT INTO "GAMES_TABLEACTION"') or text.startswith(
            "INSERT INTO GAMES_TABLEACTION"):
        return "the action's INSERT"
    if text.startswith(('UPDATE "GAMES_TABLE"', "UPDATE GAMES_TABLE ")):
        return "the table's UPDATE"
    if text.startswith("SELECT"):
        return None
    return "other: " + text[:40]


def read_usage(log: Path, offset: int, pid: int) -> list[tuple[str, float, bool]]:
    """(statement, server CPU seconds, whether the block ends a run of it) of each
    resource-usage block backend ``pid`` logged after ``offset``. A block (``QUERY
    STATISTICS`` for a simple query; ``PARSE``, ``BIND`` and ``EXECUTE MESSAGE
    STATISTICS`` for a prepared or server-bound one) is followed by a ``STATEMENT:`` line
    naming its statement."""
    lines = log.read_bytes()[offset:].decode("utf-8", "replace").splitlines()
    mine = f"[{pid}]"
    out, seconds, ends = [], None, False
    for line in lines:
        match = STATS.search(line)
        if match and seconds is None:
            seconds = float(match[1]) + float(match[2])
        elif mine in line and "STATEMENT:  " in line and seconds is not None:
            out.append((line.split("STATEMENT:  ", 1)[1], seconds, ends))
            seconds = None
        elif mine in line and "STATISTICS" in line:  # a new block starts
            seconds = None
            ends = "QUERY STATISTICS" in line or "EXECUTE MESSAGE" in line
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--moves", type=int, default=1000)
    parser.add_argument("--warmup", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--log", default="/var/log/postgresql/postgresql-15-main.log")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not os.environ.get("DATABASE_URL"):
        print("pg_move_cost: set DATABASE_URL to a PostgreSQL database", file=sys.stderr)
        return 1
    log = Path(args.log)
    os.environ.setdefault("DEBUG", "0")
    with bench_database("pgmove", "pm") as (run, _):
        from django.db import connection

        play(5, 0, run + "w", args.seed)  # connected, caches warm
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            pid = cursor.fetchone()[0]
            cursor.execute("SET log_min_messages = log")
            cursor.execute("SET log_statement = 'all'")
            cursor.execute("SET log_statement_stats = on")
        offset = log.stat().st_size
        got = play(args.moves, args.warmup, run, args.seed)
        with connection.cursor() as cursor:
            cursor.execute("SET log_statement_stats = off")
            cursor.execute("SET log_statement = 'none'")
    usage = read_usage(log, offset, pid)
    moves = args.moves + args.warmup
    per_kind: dict[str, list[float]] = {}
    runs: dict[str, int] = {}
    for sql, seconds, ends in usage:
        kind = kind_of(sql)
        if kind is not None:
            per_kind.setdefault(kind, []).append(seconds)
            runs[kind] = runs.get(kind, 0) + ends
    report = {"moves": moves, "statements_run": sum(runs.values()),
              "table_act_statements_per_move": round(got["statements"] / args.moves, 2)}
    total = 0.0
    for kind, values in sorted(per_kind.items(), key=lambda kv: -sum(kv[1])):
        report[f"{kind}: per move, us"] = round(1e6 * sum(values) / moves, 1)
        report[f"{kind}: runs"] = runs[kind]
        total += sum(values)
    report["all of table_act's statements: us per move"] = round(1e6 * total / moves, 1)
    print_report(report, args.json, width=44)
    return 0


if __name__ == "__main__":
    sys.exit(main())
