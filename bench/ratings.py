"""Ratings at scale: ``ratings_rebuild`` over 100,000 rated games, and the leaderboard page
with 50,000 rated players (docs/ratings.md quotes the figures).

Run on a THROWAWAY PostgreSQL database (the rebuild replaces every rating in it)::

    createdb -h 127.0.0.1 -U postgres ginsite_bench_ratings
    DEBUG=1 DATABASE_URL=postgres://postgres@127.0.0.1:5432/ginsite_bench_ratings \\
        .venv/bin/python bench/ratings.py

(``DEBUG=1`` only so the settings load without a production secret key and static
manifest; the page is measured with ``DEBUG`` switched off.)

Options: ``--games 100000 --players 50000 --requests 300 --seed 1``. Steps:

1. migrate; delete the previous run's bench games and users (``bench_rt_*``);
2. create ``--players`` users (a quarter of them in one of eight countries) and ``--games``
   rated games among the first 5,000 of them (every mode; Basic Rummy with 2-4 players;
   a few resignations, some of them aborts), spread over the last 60 days;
3. time ``services.ratings_rebuild()`` (the work of ``manage.py ratings_rebuild``: load,
   replay in finish order, write the history and ratings, compute the leaderboards);
4. give all ``--players`` users an established, recently active Classic rating, time the
   beat job's snapshot of that mode, then request ``/leaderboards/`` ``--requests`` times
   through Django's full request handling (random pages, periods and countries; half as a
   logged-in player whose row is highlighted) and print the server time's p50/p95/max:
   once with the cache cleared before every request (each page's rows come from the
   database and are rendered), once keeping the cache of rendered rows.

``--page-only`` repeats step 4's measurements on the previous run's data.
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.harness import percentile  # noqa: E402

BENCH_SEED = -7_700_001  # marks the bench's games
PREFIX = "bench_rt_"
COUNTRIES = ["FR", "DE", "GB", "US", "IN", "BR", "ES", "IT"]


def setup_django() -> None:
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ginsite.settings")
    from ginsite.localfiles import prepare

    prepare()
    django.setup()


def clean() -> None:
    from accounts.models import User
    from games.models import Game

    Game.objects.filter(seed=BENCH_SEED).delete()
    User.objects.filter(username__startswith=PREFIX).delete()


def make_users(count: int, rng: random.Random) -> list[int]:
    from django.utils import timezone

    from accounts.models import User

    old = timezone.now() - timedelta(days=90)
    users = [
        User(username=f"{PREFIX}{i:06d}", email=f"{PREFIX}{i}@bench.invalid", password="!",
             date_joined=old, country=rng.choice(COUNTRIES) if rng.random() < 0.25 else "")
        for i in range(count)
    ]
    User.objects.bulk_create(users, batch_size=5000)
    return list(User.objects.filter(username__startswith=PREFIX).order_by("username")
                .values_list("pk", flat=True))


def make_games(count: int, user_ids: list[int], rng: random.Random) -> None:
    from django.utils import timezone

    from games.models import Ending, Game, GamePlayer

    modes = ["classic"] * 8 + ["straight", "oklahoma", "hollywood"] * 2 + ["rummy"] * 3
    start = timezone.now() - timedelta(days=60)
    step = 60 * 86400 / count
    batch = 5000
    for first in range(0, count, batch):
        games, seats = [], []
        for i in range(first, min(count, first + batch)):
            mode = rng.choice(modes)
            n = rng.choice([2, 2, 3, 4]) if mode == "rummy" else 2
            players = rng.sample(user_ids, n)
            places = list(range(1, n + 1))
            rng.shuffle(places)
            if rng.random() < 0.03:  # a tie for first
                places[places.index(2)] = 1
            ending, loser, actions = Ending.NORMAL, None, []
            if rng.random() < 0.05:
                ending, loser = Ending.RESIGNATION, places.index(max(places))
                moved = n if rng.random() < 0.8 else n - 1  # some are aborts
                actions = [{"seat": s, "source": "player", "action": "pass", "version": s + 2}
                           for s in range(moved)]
            games.append((Game(
                mode=mode, num_players=n, target=100, rated=True, seed=BENCH_SEED,
                actions=actions, final={"places": places}, ending=ending, loser_seat=loser,
                finished_at=start + timedelta(seconds=i * step + rng.random() * step),
            ), players, places))
        created = Game.objects.bulk_create([g for g, _, _ in games])
        for game, (_, players, places) in zip(created, games, strict=True):
            for seat, (user_id, place) in enumerate(zip(players, places, strict=True)):
                seats.append(GamePlayer(game_id=game.pk, seat=seat, user_id=user_id,
                                        name=f"p{user_id}", place=place, won=place == 1))
        GamePlayer.objects.bulk_create(seats, batch_size=5000)


def bench_rebuild() -> dict:
    from leaderboards.ratings import services

    started = time.perf_counter()
    result = services.ratings_rebuild()
    result["seconds"] = time.perf_counter() - started
    return result


def make_board(user_ids: list[int], rng: random.Random) -> float:
    from django.utils import timezone

    from leaderboards.models import Rating
    from leaderboards.ratings import services, skill

    Rating.objects.filter(mode="classic", user_id__in=user_ids).delete()
    now = timezone.now()
    rows = []
    for user_id in user_ids:
        mu = rng.gauss(1500, 180)
        s = skill.Skill(mu, rng.uniform(60, 105))
        rows.append(Rating(user_id=user_id, mode="classic", mu=s.mu, sigma=s.sigma,
                           rating=skill.display(s), deviation=skill.deviation(s),
                           provisional=False, games=rng.randint(10, 400),
                           last_game_at=now - timedelta(hours=rng.uniform(0, 24 * 29))))
    Rating.objects.bulk_create(rows, batch_size=5000)
    started = time.perf_counter()
    services.leaderboard_compute(mode="classic")
    return time.perf_counter() - started


def bench_page(user_ids: list[int], requests: int, rng: random.Random, cold: bool) -> dict:
    """``cold``: the cache is cleared before every request, so each page renders its rows
    from the database (the worst case: the first view of a page after a new snapshot)."""
    from django.conf import settings
    from django.core.cache import cache
    from django.test import Client

    from accounts.models import User
    from leaderboards.models import LeaderboardEntry

    settings.ALLOWED_HOSTS = ["*"]
    # Production's per-request work: no query log, no template debug information (the
    # template engine is built on first use, after this).
    settings.DEBUG = False
    total = LeaderboardEntry.objects.filter(mode="classic", period="all").count()
    pages = max(1, total // 50)
    anon, member = Client(), Client()
    member.force_login(User.objects.get(pk=rng.choice(user_ids)))
    times: list[float] = []
    cpu: list[float] = []
    for i in range(requests + 20):
        query = {"mode": "classic", "page": str(rng.randint(1, pages))}
        r = rng.random()
        if r < 0.15:
            query["country"] = rng.choice(COUNTRIES)
            query["page"] = "1"
        elif r < 0.25:
            query["period"] = rng.choice(["week", "month"])
            query["page"] = "1"
        client = member if i % 2 else anon
        if cold:
            cache.clear()
        started, started_cpu = time.perf_counter(), time.process_time()
        response = client.get("/leaderboards/", query)
        elapsed = (time.perf_counter() - started) * 1000
        used = (time.process_time() - started_cpu) * 1000
        if response.status_code != 200:
            raise SystemExit(f"/leaderboards/?{query} answered {response.status_code}")
        if i >= 20:  # warm-up left out
            times.append(elapsed)
            cpu.append(used)
    return {"players": total, "p50": statistics.median(times), "p95": percentile(times, 0.95),
            "max": max(times), "requests": len(times), "cold": cold,
            "cpu50": statistics.median(cpu), "cpu95": percentile(cpu, 0.95)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--players", type=int, default=50_000)
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--page-only", action="store_true",
                        help="reuse the previous run's players and board: measure the page only")
    args = parser.parse_args()
    if not os.environ.get("DATABASE_URL", "").startswith("postgres"):
        print("warning: DATABASE_URL is not PostgreSQL; the figures are meant for PostgreSQL")
    setup_django()
    from django.core.management import call_command
    from django.db import connection

    call_command("migrate", verbosity=0)
    rng = random.Random(args.seed)
    if args.page_only:
        from accounts.models import User

        user_ids = list(User.objects.filter(username__startswith=PREFIX).values_list(
            "pk", flat=True))
        for cold in (True, False):
            report_page(bench_page(user_ids, args.requests, rng, cold))
        return
    t = time.perf_counter()
    clean()
    user_ids = make_users(args.players, rng)
    make_games(args.games, user_ids[:5000], rng)
    print(f"setup: {len(user_ids)} users, {args.games} rated games in "
          f"{time.perf_counter() - t:.1f} s ({connection.vendor})")
    result = bench_rebuild()
    print(f"ratings_rebuild: {result['games']} games rated ({args.games} replayed, aborts "
          f"skipped), {result['changes']} history rows, {result['ratings']} ratings, "
          f"leaderboards included: {result['seconds']:.1f} s "
          f"({args.games / result['seconds']:.0f} games/s)")
    compute = make_board(user_ids, rng)
    print(f"leaderboard snapshot (beat job) of Classic with {len(user_ids)} rated players: "
          f"{compute:.2f} s")
    for cold in (True, False):
        report_page(bench_page(user_ids, args.requests, rng, cold))


def report_page(page: dict) -> None:
    how = "cache cleared before each" if page["cold"] else "random pages, rows cache kept"
    print(f"/leaderboards/ with {page['players']} ranked players, {page['requests']} requests "
          f"({how}): "
          f"p50 {page['p50']:.1f} ms, p95 {page['p95']:.1f} ms, max {page['max']:.1f} ms "
          f"(server time: Django's full request handling, template included; "
          f"load average {os.getloadavg()[0]:.1f}); the web process's own CPU time "
          f"p50 {page['cpu50']:.1f} ms, p95 {page['cpu95']:.1f} ms")


if __name__ == "__main__":
    main()
