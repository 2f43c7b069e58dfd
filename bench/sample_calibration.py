"""How well the Expert's samples predict whether the opponent could knock (issue #26).

    .venv/bin/python bench/sample_calibration.py --hands 400 --seed 5 [--tilt 4]

Hard plays Hard in single Classic hands. At every decision of either seat after the
opponent's first throw, 12 opponent hands are sampled from the seat's view (the Expert's
sampler, ``gin_sampler.sample_consistent``, or with ``--tilt n`` the tilted one,
``sample_tilted``, as the Expert samples) and the share of them that could knock is set
against whether the real hand could. Prints, by the samples' share, how often the real hand
could knock: a calibrated sampler has the two columns equal.
"""

from __future__ import annotations

import argparse
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bots_hands import play_hand  # noqa: E402

from games.bots import get_bot  # noqa: E402
from games.bots.cardmath import dw, mask_from  # noqa: E402
from games.bots.gin_sampler import sample_consistent, sample_tilted  # noqa: E402
from games.bots.holding import HandModel, load_weights  # noqa: E402
from games.bots.knowledge import from_view  # noqa: E402

BUCKETS = ((0.0, 0.1), (0.1, 0.3), (0.3, 0.6), (0.6, 1.01))


class _Recorder:
    def __init__(self, bot, seat: int, rng: random.Random, tilt: int, rows: list) -> None:
        self.bot, self.seat, self.rng, self.tilt, self.rows = bot, seat, rng, tilt, rows
        self.state = None

    def see_state(self, state) -> None:
        self.state = state

    def choose(self, view, legal):
        know = from_view(view)
        if know.opponent().discarded and know.knock_limit:
            real = dw(mask_from(self.state.hands[1 - self.seat])) <= know.knock_limit
            model = HandModel(know, load_weights()) if self.tilt else None
            hands = [
                (sample_tilted(know, self.rng, model, self.tilt) if model
                 else sample_consistent(know, self.rng))[0]
                for _ in range(12)
            ]
            share = sum(dw(h) <= know.knock_limit for h in hands) / len(hands)
            self.rows.append((share, real))
        return self.bot.choose(view, legal)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hands", type=int, default=400)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--tilt", type=int, default=0)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    rows: list = []
    for h in range(args.hands):
        bots = [_Recorder(get_bot("hard", seed=f"{args.seed}:{h}:{s}"), s, rng, args.tilt, rows)
                for s in (0, 1)]
        play_hand("classic", bots, args.seed * 1000 + h)
    print(f"{args.hands} Classic hands, Hard vs Hard, seed {args.seed}, tilt {args.tilt}: "
          f"{len(rows)} positions; real hands could knock in "
          f"{sum(r for _s, r in rows) / len(rows):.1%}, samples in "
          f"{sum(s for s, _r in rows) / len(rows):.1%}")
    print("samples that could knock   positions   real could knock   samples could knock")
    for lo, hi in BUCKETS:
        sel = [(s, r) for s, r in rows if lo <= s < hi]
        if sel:
            print(f"  {lo:4.0%} to {min(hi, 1):4.0%}            {len(sel):6d}   "
                  f"{sum(r for _s, r in sel) / len(sel):16.1%}   "
                  f"{sum(s for s, _r in sel) / len(sel):18.1%}")


if __name__ == "__main__":
    main()
