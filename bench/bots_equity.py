"""Hand-outcome distributions for the Expert's game-equity tables (``games/bots/equity.py``).

    .venv/bin/python bench/bots_equity.py --mode classic --hands 3000 [--seed 1] [--bot hard]

Plays single hands of ``bot`` against itself (each hand from a fresh deal, scores 0-0) and
prints the share of drawn hands and the distribution of the winner's points in 5-point bins
(bin centre = mean of the points that fell in it), in the form ``equity.py`` stores.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bots_hands import play_hand  # noqa: E402

from games.bots import get_bot  # noqa: E402


def hand_points(mode: str, bot: str, seed: int, n: int) -> list[int]:
    """Winner's points of ``n`` hands (0 for a drawn hand)."""
    out = []
    for d in range(n):
        bots = [get_bot(bot, seed=f"{seed}:{d}:{s}") for s in range(2)]
        hr, _ = play_hand(mode, bots, seed * 1_000_003 + d)
        out.append(hr.points if hr.winner is not None else 0)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mode", default="classic")
    ap.add_argument("--bot", default="hard")
    ap.add_argument("--hands", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    pts = hand_points(args.mode, args.bot, args.seed, args.hands)
    n = len(pts)
    drawn = sum(1 for p in pts if p == 0)
    bins: dict[int, list[int]] = defaultdict(list)
    for p in pts:
        if p:
            bins[(p - 1) // 5].append(p)
    table = []
    for k in sorted(bins):
        xs = bins[k]
        table.append((round(sum(xs) / len(xs), 1), round(len(xs) / n, 4)))
    print(f"# {args.mode}: {n} hands of {args.bot} vs {args.bot}, seed {args.seed}")
    print(f"{args.mode!r}: ({drawn / n:.4f}, {tuple(table)}),")


if __name__ == "__main__":
    main()
