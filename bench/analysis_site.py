"""The analysis on the site: what a stored analysis costs the site (docs/analysis.md, "On the
site"), on whole 100-point Classic games.

Plays ``--games`` games to 100 points (each seat a computer choosing from its own view: Hard
against Medium), stores them as finished games, then for each one asks for its analysis as a
player would (``services.analysis_request``; the task runs in this process, eagerly: the
analyser's time plus the site's storing) and prints, per game and as p50/p95: the decisions,
the time from the request to the stored analysis, the analyser's own time, the bytes of the
stored JSON, of ``analysis.json`` and of the game page (raw and gzip), and the game page's
time and queries with the analysis (``--repeat`` requests through Django's test client,
DEBUG off). Frames to sockets are not sent (nobody listens here).

Run (a SQLite database in a temporary folder, made and dropped by the bench)::

    .venv/bin/python bench/analysis_site.py --games 3 --repeat 20
"""
from __future__ import annotations

import argparse
import gzip
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.harness import embedded_site, percentile  # noqa: E402

VAR = embedded_site("bench-analysis-")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from accounts.models import User
    from core import channels
    from games import services
    from games.models import Analysis
    from games.services import analysis as analysis_service
    from tests.support.records import finished_game, short_game_state

    call_command("migrate", verbosity=0)
    channels.send_now = analysis_service.send_now = lambda messages: True  # nobody listens
    ann = User.objects.create_user("bench_ann", "ann@example.com", "x-Strong-pass-1")
    bob = User.objects.create_user("bench_bob", "bob@example.com", "x-Strong-pass-1")
    client = Client()
    client.force_login(ann)
    rows = []
    print(f"{'game':>4} {'decisions':>9} {'request→stored s':>16} {'analyser s':>10} "
          f"{'stored KB':>9} {'json KB':>7} {'json gz KB':>10} {'page KB':>7} "
          f"{'page gz KB':>10} {'page p50 ms':>11} {'queries':>7}")
    for i in range(args.games):
        seed = args.seed + i
        state = short_game_state(seed=seed, target=100, levels=("hard", "medium"))
        game = finished_game([ann, bob], seed=seed, state=state)
        begun = time.perf_counter()
        services.analysis_request(game_id=game.pk, user=ann)
        wall = time.perf_counter() - begun
        stored = Analysis.objects.get(game=game)
        body = client.get(f"/games/{game.pk}/analysis.json").content
        times = []
        for _ in range(args.repeat):
            t = time.perf_counter()
            with CaptureQueriesContext(connection) as queries:
                page = client.get(f"/games/{game.pk}/").content
            times.append((time.perf_counter() - t) * 1000)
        row = {
            "decisions": len(stored.data["decisions"]), "wall": wall, "analyser": stored.seconds,
            "stored": len(str(stored.data).encode()) / 1024, "json": len(body) / 1024,
            "json_gz": len(gzip.compress(body)) / 1024, "page": len(page) / 1024,
            "page_gz": len(gzip.compress(page)) / 1024, "page_ms": statistics.median(times),
            "queries": len(queries),
        }
        rows.append(row)
        print(f"{game.pk:>4} {row['decisions']:>9} {row['wall']:>16.1f} {row['analyser']:>10.1f} "
              f"{row['stored']:>9.0f} {row['json']:>7.0f} {row['json_gz']:>10.0f} "
              f"{row['page']:>7.0f} {row['page_gz']:>10.0f} {row['page_ms']:>11.1f} "
              f"{row['queries']:>7}")
    for key, label in (("wall", "request→stored s"), ("analyser", "analyser s"),
                       ("json_gz", "analysis.json gzip KB"), ("page_gz", "game page gzip KB"),
                       ("page_ms", "game page p50 ms")):
        values = [r[key] for r in rows]
        print(f"{label}: p50 {percentile(values, .5):.1f}, p95 {percentile(values, .95):.1f}, "
              f"max {max(values):.1f}")


if __name__ == "__main__":
    main()
