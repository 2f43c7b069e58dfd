"""The periodic work at 100,000 live tables, on a synthetic PostgreSQL database: one pass of
the sweep (``games.services.sweep.tables_sweep``) and a batch of the tasks every finished
game queues (``leaderboards.game_rated`` and ``stats.game_record``), timed in this process.

Run on a THROWAWAY database of its own (it bulk-inserts users, tables and games and deletes
them at the end)::

    createdb -h 127.0.0.1 -U postgres ginsite_bench_sweep
    DEBUG=1 DATABASE_URL=postgres://postgres@127.0.0.1:5432/ginsite_bench_sweep \\
        .venv/bin/python bench/sweep_scale.py --tables 100000 --late 500 --games 1000

Steps: one real two-player table is started, played 30 moves and resigned through the
services (the source of a valid state, and of a finished rated game with its record);
``--tables`` tables in play are bulk-inserted with that state (two seated, connected players
each, a turn deadline a minute ahead), ``--late`` of them with a deadline already passed
(the tables a dead Daphne left to the sweep). Timed: a sweep pass that applies those
``--late`` timeouts,
then a pass with nothing to do (the cost of looking at 100,000 tables every period).
Then ``--games`` copies of the finished game among the bench players are bulk-inserted and
each one's two tasks are run in finish order, as one worker would (per-task times, p50 and
p95, and the tasks a second of one worker process).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
PREFIX = "bench_sw_"
SEED = 424242


def setup_django() -> None:
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ginsite.settings")
    from ginsite.localfiles import prepare

    prepare()
    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def clean() -> None:
    from accounts.models import User
    from games.models import Game, Table

    Game.objects.filter(seed=SEED).delete()
    tables = Table.objects.filter(seed=SEED)
    tables.update(rematch_table=None)
    tables.delete()
    User.objects.filter(username__startswith=PREFIX).delete()


def percentile(values: list[float], q: float) -> float:
    values = sorted(values)
    if not values:
        return float("nan")
    return values[min(len(values) - 1, int(q * len(values)))]


def play_one_game(room, a, b):
    """A rated table through the services: 30 safe moves, then the player to act resigns
    (a rated, finished game with its record); the table as started and as finished."""
    from games import services, states, timeouts
    from games.models import Table, TableStatus

    table = services.table_create(user=a, room=room, seat_count=2, seconds_per_turn=60,
                                  target=50, rated=True)
    services.table_sit(table_id=table.pk, user=b)
    start = Table.objects.get(pk=table.pk)
    for _ in range(30):
        table = Table.objects.get(pk=table.pk)
        state = states.load(table.state)
        if table.status != TableStatus.PLAYING or state.to_act is None:
            break
        services.table_act(table_id=table.pk, user=[a, b][state.to_act],
                           action=timeouts.safe_action(state), expected_version=table.version)
    table = Table.objects.get(pk=table.pk)
    if table.status == TableStatus.PLAYING:
        services.table_resign(table_id=table.pk, user=a)
    return start, Table.objects.get(pk=table.pk)


def make_users(count: int) -> list[int]:
    from accounts.models import User

    User.objects.bulk_create([User(username=f"{PREFIX}{i:07d}", password="!",
                                   email=f"{PREFIX}{i}@bench.invalid") for i in range(count)],
                             batch_size=10000)
    return list(User.objects.filter(username__startswith=PREFIX).order_by("pk")
                .values_list("pk", flat=True))


def make_tables(count: int, late: int, model, user_ids: list[int]) -> None:
    from django.utils import timezone

    from games.models import Seat, Table, TableStatus

    now = timezone.now()
    batch = 5000
    for first in range(0, count, batch):
        rows = []
        for i in range(first, min(count, first + batch)):
            deadline = now - timedelta(seconds=5) if i < late else now + timedelta(seconds=60)
            rows.append(Table(
                room_id=model.room_id, mode=model.mode, seat_count=2, target=model.target,
                rated=True, seconds_per_turn=60, status=TableStatus.PLAYING,
                version=model.version, state=model.state, seed=SEED,
                created_by_id=user_ids[2 * i], started_at=now, turn_deadline=deadline,
                deadline_seat=model.deadline_seat))
        created = Table.objects.bulk_create(rows)
        Seat.objects.bulk_create([
            Seat(table_id=t.pk, index=s, user_id=user_ids[2 * i + s], connected=True,
                 last_seen=now)
            for i, t in zip(range(first, first + len(created)), created, strict=True)
            for s in (0, 1)], batch_size=10000)


def make_games(count: int, model, user_ids: list[int]) -> list[int]:
    from django.utils import timezone

    from games.models import Game, GamePlayer

    players = list(model.players.order_by("seat"))
    fields = {f.attname: getattr(model, f.attname) for f in Game._meta.concrete_fields
              if f.attname not in ("id", "table_id", "offline_id", "finished_at", "seed")}
    rng = random.Random(1)
    now = timezone.now()
    games = Game.objects.bulk_create([
        Game(**fields, seed=SEED, finished_at=now - timedelta(seconds=count - i))
        for i in range(count)], batch_size=2000)
    rows = []
    for game in games:
        a, b = rng.sample(user_ids, 2)
        for p, uid in zip(players, (a, b), strict=True):
            rows.append(GamePlayer(
                game_id=game.pk, seat=p.seat, user_id=uid, name=f"p{uid}", score=p.score,
                place=p.place, won=p.won, mode=p.mode, rated=p.rated, private=p.private,
                finished_at=game.finished_at, bot_level=None))
    GamePlayer.objects.bulk_create(rows, batch_size=10000)
    return [g.pk for g in games]


def fresh_clocks(late: int) -> None:
    """The inserts take minutes at 100,000 tables: the turns' deadlines and the players'
    pings are set again from now (the first ``late`` tables' deadlines passed 5 s ago), as
    on a site whose players are all connected."""
    from django.utils import timezone

    from games.models import Seat, Table

    now = timezone.now()
    tables = Table.objects.filter(seed=SEED)
    tables.update(turn_deadline=now + timedelta(seconds=60))
    first = list(tables.order_by("pk").values_list("pk", flat=True)[:late])
    Table.objects.filter(pk__in=first).update(turn_deadline=now - timedelta(seconds=5))
    Seat.objects.filter(table__seed=SEED).update(last_seen=now, connected=True)


def live() -> None:
    """What each Daphne with seated sockets does every second: stamp the clocks heartbeat
    (the bench's bulk writes take longer than the 4 s that make a gap an outage)."""
    from django.utils import timezone

    from games.models import Heartbeat

    Heartbeat.objects.update_or_create(name="clocks", defaults={"at": timezone.now()})


def outage_and_disconnect(tables: int) -> dict:
    """The two steps a site-wide outage sends through the sweep, at this many tables: the
    time given back (batch by batch: the longest batch is the longest a move waits for a
    table's row lock), then every player gone at once (the presence of every table to
    publish, a bounded number a pass)."""
    from django.core.cache import cache
    from django.utils import timezone

    from games import conf
    from games.models import ClockOutage, Heartbeat, Seat, grace_seconds
    from games.services import clock, presence, sweep

    out: dict = {}
    batches: list[float] = []
    real = clock.give_back_batch

    def timed(outage):
        t0 = time.perf_counter()
        try:
            return real(outage)
        finally:
            batches.append(time.perf_counter() - t0)

    clock.give_back_batch = timed
    try:
        Heartbeat.objects.filter(name="clocks").update(at=timezone.now() - timedelta(seconds=60))
        t0 = time.perf_counter()
        given = clock.clocks_watched()
        out["give_back_s"] = round(time.perf_counter() - t0, 2)
    finally:
        clock.give_back_batch = real
    out["give_back_extended"] = given["extended"] if given else None
    out["give_back_batches"] = len(batches)
    out["give_back_batch_p50_ms"] = round(percentile(batches, 0.5) * 1000, 1)
    out["give_back_batch_max_ms"] = round(max(batches) * 1000, 1)
    out["give_back_again_is_none"] = clock.clocks_watched() is None
    ClockOutage.objects.all().delete()
    # every player left at once a little over the grace period ago
    cache.delete(presence.PRESENCE_CURSOR)
    gone = timezone.now() - timedelta(seconds=grace_seconds() + 5)
    Seat.objects.filter(table__seed=SEED).update(last_seen=gone, connected=False)
    live()
    t0 = time.perf_counter()
    done = sweep.tables_sweep()
    out["sweep_all_gone_s"] = round(time.perf_counter() - t0, 2)
    out["sweep_all_gone_presence"] = done["presence"]
    out["presence_per_sweep"] = conf.get("PRESENCE_PER_SWEEP")
    live()
    t0 = time.perf_counter()
    done = sweep.tables_sweep()
    out["sweep_all_gone_second_s"] = round(time.perf_counter() - t0, 2)
    out["sweep_all_gone_second_presence"] = done["presence"]
    out["passes_to_publish_all_gone"] = -(-tables // conf.get("PRESENCE_PER_SWEEP"))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=100_000)
    parser.add_argument("--late", type=int, default=500)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--batch", type=int, default=60,
                        help="unrated games rated by one task at the end (the lock's hold)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not os.environ.get("DATABASE_URL", "").startswith("postgres"):
        print("sweep_scale: needs DATABASE_URL of a throwaway PostgreSQL database",
              file=sys.stderr)
        return 1
    setup_django()
    from django.db import connection

    from accounts.models import User

    # No channel layer: nobody is connected, and the frames of the source game go nowhere.
    from core import channels
    from games.models import Game, Room
    from games.rooms import ensure_default_rooms
    from games.services import sweep
    from leaderboards.ratings import tasks as rating_tasks
    from leaderboards.stats import tasks as stats_tasks

    channels.get_channel_layer = lambda: None
    clean()
    report: dict = {"tables": args.tables, "late": args.late, "games": args.games}
    try:
        ensure_default_rooms(Room)
        room = Room.objects.get(slug="classic")
        t0 = time.perf_counter()
        user_ids = make_users(2 * args.tables)
        a, b = (User.objects.get(pk=pk) for pk in user_ids[:2])
        start, finished = play_one_game(room, a, b)
        make_tables(args.tables, args.late, start, user_ids)
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE games_table; ANALYZE games_seat")
            cursor.execute("SELECT pg_size_pretty(pg_total_relation_size('games_table')),"
                           " pg_size_pretty(pg_total_relation_size('games_seat'))")
            report["table_rows_size"], report["seat_rows_size"] = cursor.fetchone()
        report["setup_s"] = round(time.perf_counter() - t0, 1)
        fresh_clocks(args.late)
        # A live site: a Daphne stamped the clocks heartbeat a moment ago (without it the
        # sweep gives every turn back the time since the last stamp instead of timing out).
        live()
        t0 = time.perf_counter()
        done = sweep.tables_sweep()
        report["sweep_with_late_s"] = round(time.perf_counter() - t0, 3)
        report["sweep_with_late_done"] = done
        t0 = time.perf_counter()
        live()
        done = sweep.tables_sweep()
        report["sweep_idle_s"] = round(time.perf_counter() - t0, 3)
        report["sweep_idle_done"] = done
        # the waiting tables' step alone (closing.py: people gone from the site, stale):
        # every pass looks for them among all the tables
        from django.utils import timezone

        from games.services.closing import tables_close_waiting

        steps = []
        for _ in range(21):
            t0 = time.perf_counter()
            tables_close_waiting(timezone.now())
            steps.append((time.perf_counter() - t0) * 1000)
        report["waiting_step_p50_ms"] = round(percentile(steps, 0.5), 2)
        report.update(outage_and_disconnect(args.tables))
        game = Game.objects.get(table_id=finished.pk)
        ids = make_games(args.games, game, user_ids)
        rated, recorded = [], []
        for gid in ids:
            t0 = time.perf_counter()
            rating_tasks.game_rated.run(gid)
            rated.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            stats_tasks.game_record.run(gid)
            recorded.append(time.perf_counter() - t0)
        # A backlog: a second's worth of finished Classic games at 100,000 players (about 60)
        # rated by one task under the mode's ledger lock (a task rates every earlier unrated
        # game of its mode): how long the lock is held.
        from leaderboards.ratings import services as rating_services

        backlog = make_games(args.batch, game, user_ids)
        t0 = time.perf_counter()
        rated_now = rating_services.game_rate(game_id=backlog[-1])
        report["ratings_backlog_games"] = len(rated_now)
        report["ratings_backlog_lock_s"] = round(time.perf_counter() - t0, 3)
        ms = 1000
        report.update({
            "game_rated_p50_ms": round(percentile(rated, 0.5) * ms, 2),
            "game_rated_p95_ms": round(percentile(rated, 0.95) * ms, 2),
            "game_record_p50_ms": round(percentile(recorded, 0.5) * ms, 2),
            "game_record_p95_ms": round(percentile(recorded, 0.95) * ms, 2),
            "finished_game_tasks_per_s_one_worker": round(
                len(ids) / (sum(rated) + sum(recorded)), 1),
        })
    finally:
        clean()
    if args.json:
        print(json.dumps(report))
    else:
        for key, value in report.items():
            print(f"{key:>38}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
