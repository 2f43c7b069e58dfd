"""Profile, archive and statistics pages of a player with 10,000 finished games.

Creates (once; reused on later runs) a player ``bench_pp`` with ``--games`` finished games
against 30 people and the four computer levels over two years, in every mode, with hand
results and engine records taken from real engine games (random play), and ``--others``
games between those 30 people (so that the player's rows are a third of the tables), then
counts the statistics with ``stats_rebuild`` (timed). Then it requests each page
``--repeat`` times in this process through Django's test client (DEBUG off: the whole
request, middleware, queries and template, as the server spends it) and prints p50, p95 and
max in ms and the number of queries of each page.

Run on PostgreSQL (the budget is p95 <= 50 ms there)::

    createdb -h 127.0.0.1 -U postgres ginsite_bench_pp
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/ginsite_bench_pp \\
        .venv/bin/python bench/profile_pages.py

Options: ``--games 10000 --others 20000 --repeat 200 --fresh`` (``--fresh`` deletes the
bench's games first).
"""
from __future__ import annotations

import argparse
import os
import random
import secrets
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.harness import percentile  # noqa: E402

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ginsite.settings")
os.environ["DEBUG"] = "0"
os.environ.setdefault("SECRET_KEY", "bench-" + secrets.token_urlsafe(60))
os.environ["SECURE_SSL_REDIRECT"] = "0"
os.environ.setdefault("ALLOWED_HOSTS", "testserver")

MAIN = "bench_pp"
PEOPLE = 30
MODES = [("classic", 0.45), ("oklahoma", 0.15), ("hollywood", 0.1), ("straight", 0.1),
         ("rummy", 0.2)]


def engine_pool(per_mode: int = 12) -> dict[str, list]:
    """Finished two-player engine games per mode (random play) to copy hands and records."""
    from games import engine as E
    from games import states
    from games.engine.selfplay import play_game

    pool = {}
    for mode, _ in MODES:
        pool[mode] = []
        for seed in range(per_mode):
            state = play_game(mode, seed=seed, num_players=2, check=False)
            pool[mode].append({
                "state": state,
                "hands": states.hand_results(state),
                "settings": states.mode_settings(state),
                "result": state.result.to_dict(),
                "totals": list(state.result.totals),
                "engine": E.GameRecord.from_state(state, players=["a", "b"]).to_dict(),
                "moves": len(state.moves),
            })
    return pool


def setup(n_games: int, n_others: int, fresh: bool) -> tuple:
    from accounts.models import User
    from games.models import Game, GamePlayer

    main, _ = User.objects.get_or_create(username=MAIN, defaults={"email": f"{MAIN}@example.com"})
    people = []
    for i in range(PEOPLE):
        u, _ = User.objects.get_or_create(username=f"{MAIN}_{i}",
                                          defaults={"email": f"{MAIN}_{i}@example.com"})
        people.append(u)
    if fresh:
        Game.objects.filter(players__user__username__startswith=MAIN).delete()
    created = False
    pool = None
    others = Game.objects.exclude(players__user=main).count()
    if others < n_others:  # other people's games, so the tables are not the player's alone
        pool = engine_pool()
        print(f"creating {n_others - others} games of other people ...", flush=True)
        create_games(n_others - others, None, people, pool, seed=41)
        created = True
    have = GamePlayer.objects.filter(user=main).count()
    if have < n_games:
        pool = pool or engine_pool()
        print(f"creating {n_games - have} games of {MAIN} ...", flush=True)
        create_games(n_games - have, main, people, pool, seed=14)
        created = True
    return main, people, created


def create_games(todo: int, main, people: list, pool: dict, seed: int) -> None:
    """``todo`` games of ``main`` (or, with None, between two of ``people``) over two years."""
    from django.db import transaction

    from games.models import Ending, Game, GamePlayer

    n_games = todo
    have = 0
    t0 = time.monotonic()
    rng = random.Random(seed)
    start = time.time() - 2 * 365 * 86400
    from datetime import UTC, datetime

    modes, weights = zip(*MODES, strict=True)
    todo = n_games - have
    batch = 500
    for b in range(0, todo, batch):
        games, seats = [], []
        for i in range(b, min(todo, b + batch)):
            mode = rng.choices(modes, weights)[0]
            src = rng.choice(pool[mode])
            finished = datetime.fromtimestamp(start + (have + i) * (2 * 365 * 86400 / n_games)
                                              + rng.random() * 600, tz=UTC)
            ending = Ending.NORMAL if rng.random() < 0.93 else rng.choice(
                [Ending.RESIGNATION, Ending.TIMEOUT, Ending.ABANDONMENT])
            me = rng.randrange(2)
            winner = src["result"]["winner"]
            loser = None
            if ending != Ending.NORMAL:
                loser = rng.randrange(2)
                winner = 1 - loser
            against_bot = rng.random() < 0.35
            first = main or rng.choice(people)
            games.append((Game(
                mode=mode, settings=src["settings"], num_players=2, target=100,
                rated=not against_bot and rng.random() < 0.6, seed=rng.randrange(10 ** 9),
                actions=[], hands=src["hands"],
                final={"result": src["result"], "totals": src["totals"]},
                record={"format": "ginsite-game/1", "engine": src["engine"]},
                ending=ending, loser_seat=loser, winner_seat=winner,
                started_at=finished - timedelta(minutes=rng.randint(3, 40)),
                finished_at=finished,
            ), me, against_bot, winner, first))
        with transaction.atomic():
            Game.objects.bulk_create([g for g, *_ in games])
            for g, me, against_bot, winner, first in games:
                other = None if against_bot else rng.choice([p for p in people if p != first])
                level = rng.randint(1, 4) if against_bot else None
                totals = g.final["totals"]
                for seat in range(2):
                    mine = seat == me
                    seats.append(GamePlayer.of_game(
                        g, seat=seat, user=first if mine else other,
                        bot_level=None if mine else level,
                        name=first.username if mine else (
                            other.username if other else f"bot{level}"),
                        score=totals[seat], place=1 if winner == seat else 2,
                        won=winner == seat,
                    ))
            GamePlayer.objects.bulk_create(seats)
        print(f"  {min(todo, b + batch)}/{todo}", end="\r", flush=True)
    print(f"\ncreated in {time.monotonic() - t0:.1f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--others", type=int, default=20_000,
                        help="games between other people in the database")
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--fresh", action="store_true")
    args = parser.parse_args()

    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client

    from accounts.models import User
    from leaderboards.stats.models import GameFacts

    if connection.vendor != "postgresql":
        print("warning: not PostgreSQL; the budget is for PostgreSQL", file=sys.stderr)
    call_command("migrate", verbosity=0)
    call_command("collectstatic", interactive=False, verbosity=0)  # DEBUG off: the manifest
    main_user, people, created = setup(args.games, args.others, args.fresh)
    if created or not GameFacts.objects.filter(user=main_user).exists():
        print("stats_rebuild ...", flush=True)
        t0 = time.monotonic()
        call_command("stats_rebuild", no_progress=True)
        print(f"stats_rebuild: {time.monotonic() - t0:.1f} s")
    with connection.cursor() as c:
        c.execute("ANALYZE")
    opponent = people[0]
    stranger, _ = User.objects.get_or_create(username=f"{MAIN}_stranger",
                                             defaults={"email": "s@example.com"})
    anon = Client()
    as_opponent = Client()
    as_opponent.force_login(opponent)
    as_main = Client()
    as_main.force_login(main_user)
    as_stranger = Client()
    as_stranger.force_login(stranger)
    pages = [
        ("profile, visitor", anon, f"/u/{MAIN}/"),
        ("profile, an opponent (head to head)", as_opponent, f"/u/{MAIN}/"),
        ("profile, own", as_main, f"/u/{MAIN}/"),
        ("archive, own, page 1", as_main, "/games/"),
        ("archive, own, page 200", as_main, "/games/?page=200"),
        ("archive, own, classic vs an opponent", as_main,
         f"/games/?mode=classic&opponent={opponent.username}"),
        ("archive, own, lost rated, a year", as_main,
         "/games/?result=loss&rated=rated&date_from=2025-01-01&date_to=2025-12-31"),
        ("archive, public, visitor", anon, f"/u/{MAIN}/games/"),
        ("archive, public, page 100, logged in", as_stranger, f"/u/{MAIN}/games/?page=100"),
        ("my statistics", as_main, "/stats/"),
    ]
    n = GameFacts.objects.filter(user=main_user).count()
    print(f"\n{MAIN}: {n} games; {args.repeat} requests per page; DEBUG={settings.DEBUG}; "
          f"database {connection.vendor}")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"load average {load:.2f} on {os.cpu_count()} cores; times in ms; 'cpu p95' is "
          "this process's CPU time (Python and templates, without PostgreSQL's)")
    print(f"{'page':42} {'p50':>7} {'p95':>7} {'max':>7} {'cpu p95':>7} {'queries':>8}")
    worst = 0.0
    for name, client, url in pages:
        for _ in range(5):
            r = client.get(url)
            assert r.status_code == 200, (url, r.status_code)
        queries: list[str] = []

        def count(run, sql, *rest, queries=queries):
            queries.append(sql)
            return run(sql, *rest)

        with connection.execute_wrapper(count):
            client.get(url)
        times, cpu = [], []
        for _ in range(args.repeat):
            t0, c0 = time.perf_counter(), time.process_time()
            r = client.get(url)
            times.append((time.perf_counter() - t0) * 1000)
            cpu.append((time.process_time() - c0) * 1000)
        p95 = percentile(times, 0.95)
        worst = max(worst, p95)
        print(f"{name:42} {statistics.median(times):7.1f} {p95:7.1f} {max(times):7.1f} "
              f"{percentile(cpu, 0.95):7.1f} {len(queries):8d}")
    print(f"\nworst p95: {worst:.1f} ms (budget 50 ms)")


if __name__ == "__main__":
    main()
