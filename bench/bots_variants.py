"""Paired screen of bot variants: each variant plays the same single-hand duplicate deals.

    .venv/bin/python bench/bots_variants.py --b hard --deals 300 --jobs 2 \\
        --variant "" --variant "confidence=2.0" --variant "max_samples=48,min_samples=16"

Every variant is the Expert (``--a``) with the given constructor options. On each deal every
variant plays one hand against ``--b`` in both seats, with the same bot seeds, so the
variants' nets per deal are paired: where two variants make the same decisions their results
are identical, and the paired difference to the first variant has a much smaller error than
separate runs (``bots_hands.py``) would. Prints each variant's mean net points per hand and
its paired difference to the first variant with the standard error.
"""

from __future__ import annotations

import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bots_hands import bot_options, deals_parser, duplicate_hand, map_deals  # noqa: E402


def _deal(args: tuple) -> list[float]:
    mode, a, b, variants, seed, deal = args
    return [duplicate_hand(mode, a, b, v, seed, deal)[0] for v in variants]


def main() -> None:
    ap = deals_parser(__doc__)
    ap.add_argument("--variant", action="append", default=[], help="key=value,key=value")
    args = ap.parse_args()
    specs = args.variant or [""]
    variants = [bot_options([p for p in v.split(",") if p]) for v in specs]
    work = [(args.mode, args.a, args.b, variants, args.seed, d) for d in range(args.deals)]
    t0 = time.time()
    res = map_deals(_deal, work, args.jobs, chunksize=2)
    n = len(res)
    print(
        f"{args.mode} {args.a} variants vs {args.b}: {n} deal pairs, seed {args.seed}, "
        f"{time.time() - t0:.0f} s"
    )
    for i, spec in enumerate(specs):
        xs = [r[i] for r in res]
        mean = sum(xs) / n
        ds = [r[i] - r[0] for r in res]
        dm = sum(ds) / n
        se = math.sqrt(sum((d - dm) ** 2 for d in ds) / max(n - 1, 1) / n)
        print(f"  {spec or '(default)':40s} net {mean:+.2f}/hand   vs first {dm:+.2f} ± {se:.2f}")


if __name__ == "__main__":
    main()
