"""Calibrate ``equity.MatchEquity`` (Hollywood's chance of winning the match) on simulated
matches.

    .venv/bin/python bench/hollywood_equity.py --matches 4000 [--seed 1]

Plays ``matches`` Hollywood matches between two equal players (``equity.simulate_match``:
each decided hand goes to either player with the same chance, for points drawn from
Hollywood's ``HAND_RESULTS``, scored on the three-game sheet as the engine scores it). At
the start of every hand it asks ``MatchEquity`` for the chance that seat 0 wins the match,
and prints the log loss and Brier score of those chances against how
the matches ended, for a grid of its ``corr`` and ``spread``, beside two references: a
coin (0.5) and the sheet's difference alone through the best single normal spread.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from games.bots.equity import MatchEquity, simulate_match  # noqa: E402
from games.engine.modes import MODES, gin_mode  # noqa: E402

MODE = gin_mode(MODES["hollywood"])


def sheet_difference(sheet: dict) -> float:
    """Seat 0's points and line bonuses minus seat 1's, over the three games."""
    d = 0.0
    for col in sheet["columns"]:
        pts, w = col["points"], col["hands_won"]
        d += pts[0] - pts[1] + MODE.line_bonus * (w[0] - w[1])
    return d


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--matches", type=int, default=4000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--corr", default="0.25,0.5,0.75,1.0")
    ap.add_argument("--spread", default="0.7,0.85,1.0,1.15,1.3")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    data = []
    for _ in range(args.matches):
        states, res = simulate_match(MODE, rng)
        data.extend((sheet, won, res) for sheet, won in states)
    print(f"# {args.matches} matches, {len(data)} positions")

    def score(probs: list[float]) -> tuple[float, float]:
        ll = br = 0.0
        for p, (_s, _w, y) in zip(probs, data, strict=True):
            p = min(max(p, 1e-6), 1 - 1e-6)
            ll -= y * math.log(p) + (1 - y) * math.log(1 - p)
            br += (p - y) ** 2
        return ll / len(data), br / len(data)

    ll, br = score([0.5] * len(data))
    print(f"coin            log loss {ll:.4f}  brier {br:.4f}")
    diffs = [sheet_difference(s) for s, _w, _y in data]
    ref = min(
        (score([0.5 * (1 + math.erf(d / sd / math.sqrt(2))) for d in diffs]), sd)
        for sd in range(50, 501, 25)
    )
    (ll, br), sd = ref
    print(f"sheet alone     log loss {ll:.4f}  brier {br:.4f}  (normal, spread {sd})")
    best = None
    for corr in (float(x) for x in args.corr.split(",")):
        for spread in (float(x) for x in args.spread.split(",")):
            probs = [MatchEquity(MODE, s, w, 0, corr=corr, spread=spread).base for s, w, _ in data]
            ll, br = score(probs)
            print(f"corr {corr:.2f} spread {spread:.2f}  log loss {ll:.4f}  brier {br:.4f}")
            if best is None or ll < best[0]:
                best = (ll, corr, spread)
    assert best is not None
    print(f"best: corr {best[1]:.2f} spread {best[2]:.2f} (log loss {best[0]:.4f})")


if __name__ == "__main__":
    main()
