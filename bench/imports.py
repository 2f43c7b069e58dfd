"""Imported records on the site: what keeping and showing them costs (docs/records.md,
"Imported records").

Plays ``--games`` games to 100 points (each seat a computer choosing from its own view:
Medium against Easy) and, for each, through Django's test client as a signed-in person
(DEBUG off): the import of its text record (``POST /games/import/``: read, replay with
verification, digest, store, redirect), the same file imported again (found by its digest),
and the kept record's page (``GET /games/import/<id>/``: the replay computed from the stored
record). Then the import page with ``--kept`` records in its list. Prints the bytes of the
stored record, the times (p50/p95 of ``--repeat`` requests each) and the queries.

Run (a SQLite database in a temporary folder, made and dropped by the bench)::

    .venv/bin/python bench/imports.py --games 3 --repeat 20
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.harness import embedded_site, percentile  # noqa: E402

VAR = embedded_site("bench-imports-")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--kept", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    import django

    django.setup()
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from accounts.models import User
    from games import engine as E
    from games.models import ImportedRecord
    from tests.support.records import short_game_state

    call_command("migrate", verbosity=0)
    ann = User.objects.create_user("bench_ann", "ann@example.com", "x-Strong-pass-1")
    client = Client()
    client.force_login(ann)

    def timed(call, n, before=None):
        times, queries, answer = [], 0, None
        for _ in range(n):
            if before is not None:
                before()
            t = time.perf_counter()
            with CaptureQueriesContext(connection) as q:
                answer = call()
            times.append((time.perf_counter() - t) * 1000)
            queries = len(q)
        return times, queries, answer

    def upload(text, name):
        return client.post("/games/import/", {"record": SimpleUploadedFile(
            name, text.encode(), content_type="text/plain")})

    print(f"{'game':>4} {'moves':>5} {'file KB':>7} {'stored KB':>9} "
          f"{'import ms p50/p95 (q)':>22} {'again ms p50 (q)':>17} {'page ms p50/p95 (q)':>20}")
    rows = []
    for i in range(args.games):
        seed = args.seed + i
        state = short_game_state(seed=seed, target=100, levels=("medium", "easy"))
        record = E.GameRecord.from_state(state, players=["ann", "bob"])
        record = E.GameRecord.from_state(
            state, players=["ann", "bob"],
            timestamps=[1764640000000 + 1500 * k for k in range(len(record.moves))])
        text = record.to_text()

        imp, imp_q, answer = timed(
            lambda text=text, seed=seed: upload(text, f"game-{seed}.txt"), args.repeat,
            before=lambda: ImportedRecord.objects.filter(owner=ann).delete())
        assert answer.status_code == 302, answer.status_code
        again, again_q, answer2 = timed(lambda text=text: upload(text, "again.txt"), args.repeat)
        assert answer2["Location"] == answer["Location"]
        kept = ImportedRecord.objects.get(owner=ann)
        page, page_q, shown = timed(lambda url=answer["Location"]: client.get(url), args.repeat)
        assert shown.status_code == 200
        stored = len(json.dumps(kept.record, separators=(",", ":")).encode()) / 1024
        rows.append((imp, again, page))
        print(f"{seed:>4} {kept.moves:>5} {len(text.encode()) / 1024:>7.1f} {stored:>9.1f} "
              f"{percentile(imp, .5):>10.1f}/{percentile(imp, .95):<6.1f} ({imp_q:>2}) "
              f"{percentile(again, .5):>10.1f} ({again_q:>2}) "
              f"{percentile(page, .5):>8.1f}/{percentile(page, .95):<6.1f} ({page_q:>2})")

    # the import page listing --kept records (copies of the last one, other digests)
    base = ImportedRecord.objects.get(owner=ann)
    ImportedRecord.objects.bulk_create([ImportedRecord(
        owner=ann, digest=f"{k:064x}", filename=f"copy-{k}.txt", mode=base.mode,
        names=base.names, moves=base.moves, finished=base.finished, totals=base.totals,
        record=base.record) for k in range(args.kept - 1)])
    listing, list_q, answer = timed(lambda: client.get("/games/import/"), args.repeat)
    assert answer.content.decode().count("/delete/") == args.kept
    print(f"import page with {args.kept} kept records: p50 {percentile(listing, .5):.1f} ms, "
          f"p95 {percentile(listing, .95):.1f} ms, {list_q} queries")


if __name__ == "__main__":
    main()
