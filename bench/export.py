"""The games export (``GET /api/games/export/<username>/``, docs/bot-api.md "Export") of a
player with many games: time to the first line, games per second and the most memory the
export held, through Django's WSGI request handling (a sync stream) and its ASGI handler
(the async stream Daphne serves).

Run on a THROWAWAY database (it creates a user ``bench_ex_player`` and its games)::

    createdb -h 127.0.0.1 -U postgres ginsite_bench_export
    DEBUG=1 DATABASE_URL=postgres://postgres@127.0.0.1:5432/ginsite_bench_export \\
        .venv/bin/python bench/export.py --games 5000

(``DEBUG=1`` only so the settings load without a production secret key; the requests are
made with ``DEBUG`` off.) Options: ``--games 5000 --runs 3``; the memory is measured in one
more run under ``tracemalloc`` (not timed: it slows Python down several times). Each game
is a whole Classic game played by the engine (about 10 kB of record), copied ``--games``
times.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
import tracemalloc
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

USERNAME = "bench_ex_player"
BENCH_SEED = -7_700_025  # marks the bench's games


def setup_django() -> None:
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ginsite.settings")
    from ginsite.localfiles import prepare

    prepare()
    django.setup()


def make_games(count: int) -> int:
    """The bench player with ``count`` public games (copies of one engine game)."""
    from django.core.management import call_command
    from django.utils import timezone

    from accounts.models import User
    from games import engine as E
    from games import states
    from games.engine.selfplay import play_game
    from games.models import Ending, Game, GamePlayer

    call_command("migrate", verbosity=0)
    Game.objects.filter(seed=BENCH_SEED).delete()
    User.objects.filter(username__startswith="bench_ex_").delete()
    player = User.objects.create_user(USERNAME, f"{USERNAME}@example.com", "x-bench-Pass-1")
    other = User.objects.create_user("bench_ex_other", "bench_ex_other@example.com",
                                     "x-bench-Pass-1")
    state = play_game("classic", seed=3, num_players=2, check=False)
    result = state.result
    engine = E.GameRecord.from_state(state, players=[USERNAME, "bench_ex_other"]).to_dict()
    totals = list(result.totals)
    record = {
        "format": "ginsite-game/1", "mode": "classic", "settings": states.mode_settings(state),
        "num_players": 2, "seed": 3,
        "players": [{"seat": i, "name": u.username, "username": u.username, "bot_level": None}
                    for i, u in enumerate((player, other))],
        "ending": "normal", "loser_seat": None, "winner_seat": result.winner,
        "result": result.to_dict(), "totals": totals, "engine": engine,
    }
    start = timezone.now() - timedelta(days=count)
    for first in range(0, count, 1000):
        games = Game.objects.bulk_create([
            Game(mode="classic", settings=record["settings"], num_players=2, target=100,
                 rated=False, seed=BENCH_SEED, actions=[], hands=states.hand_results(state),
                 final={"totals": totals}, record=record, ending=Ending.NORMAL,
                 winner_seat=result.winner, finished_at=start + timedelta(days=i))
            for i in range(first, min(count, first + 1000))
        ])
        GamePlayer.objects.bulk_create([
            GamePlayer.of_game(g, seat=seat, user=u, name=u.username, score=totals[seat],
                               place=1 if result.winner == seat else 2,
                               won=result.winner == seat)
            for g in games for seat, u in enumerate((player, other))
        ])
    return len(str(record))


def wsgi_run(path: str, traced: bool) -> tuple[float, float, int, int]:
    """(seconds to the first chunk, total seconds, lines, peak bytes or 0) through the WSGI
    request handling; ``traced`` measures the memory (tracemalloc slows Python down: its
    runs are not timed)."""
    from django.test import Client

    client = Client()
    if traced:
        tracemalloc.start()
    t0 = time.perf_counter()
    response = client.get(path)
    assert response.status_code == 200, response.status_code
    first, lines = None, 0
    for chunk in response.streaming_content:
        if first is None:
            first = time.perf_counter() - t0
        lines += chunk.count(b"\n")
    total = time.perf_counter() - t0
    peak = tracemalloc.get_traced_memory()[1] if traced else 0
    tracemalloc.stop()
    return first or total, total, lines, peak


def asgi_run(path: str, traced: bool) -> tuple[float, float, int, int]:
    """The same through Django's ASGI handler (what Daphne calls), the body consumed as it
    is sent."""
    from django.core.handlers.asgi import ASGIHandler

    app = ASGIHandler()
    out = {"first": None, "lines": 0, "status": None, "asked": 0}

    async def receive():
        out["asked"] += 1
        if out["asked"] == 1:
            return {"type": "http.request", "body": b"", "more_body": False}
        await asyncio.Event().wait()  # the client stays connected until the answer ends

    async def send(message):
        if message["type"] == "http.response.start":
            out["status"] = message["status"]
        elif message["type"] == "http.response.body" and message.get("body"):
            if out["first"] is None:
                out["first"] = time.perf_counter() - t0
            out["lines"] += message["body"].count(b"\n")

    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
             "method": "GET", "scheme": "http", "path": path, "raw_path": path.encode(),
             "query_string": b"", "root_path": "", "headers": [(b"host", b"localhost")],
             "client": ("127.0.0.1", 50000), "server": ("localhost", 80)}
    if traced:
        tracemalloc.start()
    t0 = time.perf_counter()
    asyncio.run(app(scope, receive, send))
    total = time.perf_counter() - t0
    peak = tracemalloc.get_traced_memory()[1] if traced else 0
    tracemalloc.stop()
    assert out["status"] == 200, out["status"]
    return out["first"] or total, total, out["lines"], peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    setup_django()
    from django.conf import settings

    record_chars = make_games(args.games)
    settings.DEBUG = False
    settings.ACCOUNTS_API_ANON_RATE_REQUESTS = 10 ** 6  # the bench is one address
    path = f"/api/games/export/{USERNAME}/"
    print(f"export of {args.games} games (record about {record_chars / 1000:.1f} kB of "
          f"Python text each), {args.runs} runs each, best run shown, on "
          f"{settings.DATABASES['default']['ENGINE'].rsplit('.', 1)[-1]}")
    for name, run in (("WSGI (sync stream)", wsgi_run), ("ASGI (async stream)", asgi_run)):
        results = [run(path, False) for _ in range(args.runs)]
        first, total, lines, _ = min(results, key=lambda r: r[1])
        assert lines == args.games, (lines, args.games)
        peak = run(path, True)[3]
        print(f"{name:20s} first line {first * 1000:7.1f} ms · all {total:6.2f} s · "
              f"{lines / total:7.0f} games/s · peak traced memory {peak / 1e6:6.1f} MB · "
              f"median of runs {statistics.median(r[1] for r in results):6.2f} s")


if __name__ == "__main__":
    main()
