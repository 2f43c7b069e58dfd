"""The server's own work in a move, without the sockets: CPU per move of ``table_act`` (the
row locked, the action stored, the table row written, the frames built into an outbox) and
of the engine's part of it (``apply`` and the views of every seat and the spectators),
measured in the same process on the same moves.

``bench/ws_load.py`` measures a whole Daphne per move (socket framing, the channel layer,
asyncio, the thread hop); this isolates the part done in the worker thread, so a change to
the service or its queries shows up without the noise of the socket stack, and gives the
engine's cost that issue 22 compares a move with. Plays ``--moves`` moves (greedy players,
as ``ws_load``; a finished game is followed by a new table) after ``--warmup`` moves, on
the database of ``DATABASE_URL`` (else a scratch SQLite file)::

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/ginsite_bench \\
        .venv/bin/python bench/move_service.py --moves 2000

Prints CPU microseconds per move (process CPU: user + system) of ``table_act`` with its
transaction, of the engine's apply and views, their ratio, and the statements per move.
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.ws_players import choose  # noqa: E402
from bench.ws_servers import (  # noqa: E402
    Statements,
    bench_database,
    service_report,
    setup_tables,
)


def play(moves: int, warmup: int, run: str, seed: int) -> dict:
    from core.channels import Outbox
    from games import engine as E
    from games import frames, services, states
    from games.models import Table, TableStatus

    counted = Statements()
    rng = random.Random(seed)
    tables: list[dict] = []
    service_s = engine_s = 0.0
    statements = 0
    done = 0
    info = None
    users: dict[int, object] = {}
    while done < warmup + moves:
        if info is None:
            info = setup_tables(1, f"{run}-{len(tables)}")[0]
            tables.append(info)
            table = Table.objects.get(pk=info["id"])
            users = {s.index: s.user for s in table.seats.select_related("user")}
        table = Table.objects.get(pk=info["id"])
        if table.status != TableStatus.PLAYING:
            info = None
            continue
        state = states.load(table.state)
        seat = state.to_act
        action = choose(frames.view(state, seat), rng)
        measured = done >= warmup
        before = counted.n
        with counted.counting():
            t0 = time.process_time()
            services.table_act(table_id=table.pk, user=users[seat], action=action,
                               expected_version=table.version, client_id=f"m{done}",
                               outbox=Outbox())
            t1 = time.process_time()
        # The engine's part of the same move: the new state, and every view sent of it.
        t2 = time.process_time()
        new, _ = E.apply(state, str(E.Action.parse(action)), seat)
        for viewer in [*users, None]:
            frames.view(new, viewer)
        t3 = time.process_time()
        if measured:
            service_s += t1 - t0
            engine_s += t3 - t2
            statements += counted.n - before
        done += 1
    return {"service_s": service_s, "engine_s": engine_s, "statements": statements,
            "tables": len(tables)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--moves", type=int, default=2000)
    parser.add_argument("--warmup", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    os.environ.setdefault("DEBUG", "0")
    with bench_database("move", "mv") as (run, _):
        got = play(args.moves, args.warmup, run, args.seed)
    us = 1e6 / args.moves
    service, engine = got["service_s"] * us, got["engine_s"] * us
    service_report({
        "moves": args.moves, "tables": got["tables"],
        "table_act_cpu_us_per_move": round(service, 1),
        "engine_apply_and_views_cpu_us_per_move": round(engine, 1),
        "table_act_over_engine": round(service / engine, 1) if engine else None,
        "sql_per_move": round(got["statements"] / args.moves, 2),
    }, args.json, width=38)
    return 0


if __name__ == "__main__":
    sys.exit(main())
