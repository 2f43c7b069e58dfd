"""How the Expert's sampled opponent hands compare with the real ones (issue #26).

    .venv/bin/python bench/sample_evidence.py --hands 60 --samples 8 --seed 2670

Hard plays Hard in single Classic hands. At each of seat 0's decisions, the Expert's sampler
(``gin_sampler.sample_consistent``) draws ``--samples`` hands for seat 1 from seat 0's view, and
the same questions are asked of them and of seat 1's real hand:

- **gin**: the hand has no deadwood (the opponent would have gone gin instead);
- **knockable**: its deadwood is within the knock limit, and **early**, the same in the
  opponent's first four draws (Hard knocks then with anything legal);
- **throw gap**: how much less deadwood another card of the hand plus the opponent's last
  throw would have left than that throw did (0: the throw was a least-deadwood one).

Prints the share of samples and of real hands for each (docs/bots.md, issue #26).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bots_hands import play_hand  # noqa: E402

from games.bots import get_bot  # noqa: E402
from games.bots.cardmath import dw, mask_from  # noqa: E402
from games.bots.gin import GinParams  # noqa: E402
from games.bots.gin_sampler import sample_consistent  # noqa: E402
from games.bots.gin_search import choose_throw  # noqa: E402
from games.bots.knowledge import Knowledge, from_view  # noqa: E402

EARLY = GinParams().early_knock_turns  # Hard knocks with anything legal this early
GAPS = (0, 2, 4)


def _facts(know: Knowledge, hand: int, out: Counter) -> None:
    opp = know.opponent()
    d = dw(hand)
    out["hands"] += 1
    out["gin"] += d == 0
    if know.knock_limit and d <= know.knock_limit:
        out["knockable"] += 1
        out["early knockable"] += opp.stock_draws + opp.took.bit_count() <= EARLY
    x = know.taken or know.top
    if x and x & opp.discarded and not x & hand:
        out["last throw known"] += 1
        gap = d - choose_throw(hand | x, 0, 0, 0.0)[2]
        for g in GAPS:
            out[f"throw gap > {g}"] += gap > g


class _Observer:
    """Seat 0's Hard bot, asking the questions of seat 1's real hand and of the samples
    before each of its decisions (``play_hand`` hands it the state: ``see_state``)."""

    def __init__(self, bot, samples: int, rng: random.Random, sampled: Counter,
                 real: Counter) -> None:
        self.bot, self.samples, self.rng = bot, samples, rng
        self.sampled, self.real = sampled, real
        self.state = None

    def see_state(self, state) -> None:
        self.state = state

    def choose(self, view, legal):
        know = from_view(view)
        _facts(know, mask_from(self.state.hands[1]), self.real)
        for _ in range(self.samples):
            _facts(know, sample_consistent(know, self.rng)[0], self.sampled)
        return self.bot.choose(view, legal)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hands", type=int, default=60)
    ap.add_argument("--samples", type=int, default=8)
    ap.add_argument("--seed", type=int, default=2670)
    args = ap.parse_args()
    sampled: Counter = Counter()
    real: Counter = Counter()
    rng = random.Random(args.seed)
    for h in range(args.hands):
        seat0 = _Observer(get_bot("hard", seed=2 * h), args.samples, rng, sampled, real)
        play_hand("classic", [seat0, get_bot("hard", seed=2 * h + 1)], args.seed * 1000 + h)
    keys = ["gin", "knockable", "early knockable", *(f"throw gap > {g}" for g in GAPS)]
    print(f"{args.hands} Classic hands, Hard vs Hard, seed {args.seed}: "
          f"{real['hands']} positions, {sampled['hands']} samples")
    print(f"{'':20s} {'samples':>10s} {'real hands':>12s}")
    for k in keys:
        base = "last throw known" if k.startswith("throw") else "hands"
        print(f"{k:20s} {sampled[k] / max(sampled[base], 1):10.1%} "
              f"{real[k] / max(real[base], 1):12.1%}")


if __name__ == "__main__":
    main()
