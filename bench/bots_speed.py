"""Decision time per bot level (ms: median, 95th percentile, max) over seeded games.

    .venv/bin/python bench/bots_speed.py [--games 6] [--mode classic] [--levels easy,medium,...]

Each level plays ``--games`` whole games against Medium on duplicate deals; only the level's
own decisions are timed (the same timing botmatch reports).
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from games.bots import LEVELS  # noqa: E402
from games.bots.match import run_match  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--mode", default="classic")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--levels", default=",".join(LEVELS))
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"{'level':<10}{'decisions':>10}{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}{'max ms':>9}")
    for level in args.levels.split(","):
        stats = run_match(
            args.mode,
            [level, "medium"],
            args.games,
            seed=args.seed,
            num_players=args.players,
        )
        b = stats["bots"][0]
        t = b["time_ms"]
        print(
            f"{level:<10}{b['decisions']:>10}{t['p50']:>9.3f}{t['p95']:>9.3f}"
            f"{t['p99']:>9.3f}{t['max']:>9.1f}"
        )


if __name__ == "__main__":
    main()
