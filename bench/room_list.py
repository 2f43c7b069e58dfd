"""A room's live lists: CPU and statements per ``games.selectors.room_payload`` (what the room
page draws and ``tables.json`` answers every 5 s to each open room page), for a signed-in
player, with ``--tables`` waiting tables (every third one rated with a rating range) and as
many playing, and the lobby's counts (``rooms_overview``) for the same player, on the
database of ``DATABASE_URL`` (else a scratch SQLite file)::

    .venv/bin/python bench/room_list.py --tables 30 --calls 200

Runs on a checkout that predates the room's filters too (``room_payload(room)``), for
before/after figures.
"""
from __future__ import annotations

import argparse
import inspect
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.ws_servers import Statements, bench_database, service_report  # noqa: E402


def _setup(run: str, tables: int):
    from django.contrib.auth import get_user_model

    from games import services
    from games.models import Room
    from leaderboards.models import Rating

    User = get_user_model()  # (named as bench.ws_servers.cleanup deletes them: "wsload-<run>-")
    room = Room.objects.get(slug="classic")
    viewer = User.objects.create_user(f"wsload-{run}-viewer", f"{run}-v@example.com", "x")
    for i in range(tables):
        host = User.objects.create_user(f"wsload-{run}-h{i}", f"{run}-h{i}@example.com", "x")
        Rating.objects.create(user=host, mode="classic", rating=1400 + 10 * i, mu=1400,
                              sigma=90, provisional=False, games=30)
        ranged = i % 3 == 0
        services.table_create(user=host, room=room, rated=ranged,
                              rating_range=200 if ranged else None)
        other = User.objects.create_user(f"wsload-{run}-o{i}", f"{run}-o{i}@example.com", "x")
        playing = services.table_create(
            user=User.objects.create_user(f"wsload-{run}-p{i}", f"{run}-p{i}@example.com", "x"),
            room=room)
        services.table_sit(table_id=playing.pk, user=other)
    return room, viewer


def lists(room, viewer, calls: int) -> dict:
    from games import selectors

    statements = Statements()
    per_viewer = "viewer" in inspect.signature(selectors.room_payload).parameters

    def one():
        return (selectors.room_payload(room, None, viewer) if per_viewer
                else selectors.room_payload(room))

    for _ in range(10):
        one()
    with statements.counting():
        t0 = time.process_time()
        for _ in range(calls):
            payload = one()
        cpu = time.process_time() - t0
    lobby = Statements()
    per_viewer = bool(inspect.signature(selectors.rooms_overview).parameters)
    for _ in range(10):
        selectors.rooms_overview(viewer) if per_viewer else selectors.rooms_overview()
    with lobby.counting():
        t0 = time.process_time()
        for _ in range(calls):
            rooms = (selectors.rooms_overview(viewer) if per_viewer
                     else selectors.rooms_overview())
        lobby_cpu = time.process_time() - t0
    return {"calls": calls, "waiting": len(payload["open"]), "playing": len(payload["playing"]),
            "cpu_us_per_call": round(cpu * 1e6 / calls, 1),
            "sql_per_call": round(statements.n / calls, 2),
            "lobby_tables": sum(r["open_tables"] + r["playing_tables"] for r in rooms),
            "lobby_cpu_us_per_call": round(lobby_cpu * 1e6 / calls, 1),
            "lobby_sql_per_call": round(lobby.n / calls, 2)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=30)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    os.environ.setdefault("DEBUG", "0")
    with bench_database("room", "rl") as (run, _):
        room, viewer = _setup(run, args.tables)
        got = lists(room, viewer, args.calls)
    service_report(got, args.json, width=24)
    return 0


if __name__ == "__main__":
    sys.exit(main())
