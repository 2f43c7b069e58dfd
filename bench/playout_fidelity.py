"""How closely the Expert's playout players imitate Hard, decision by decision (issue #26).

    .venv/bin/python bench/playout_fidelity.py --hands 200 --seed 7 [--mode classic]

Hard plays Hard in single hands of ``--mode``. At every decision, the playouts' rules
(``gin_search.playout``: take a discard that lowers the deadwood or a low card that brings a
knock near; throw the card leaving the least deadwood; knock early, when the stock is nearly
out, and otherwise when ``--margin`` points ahead of the other real hand, which the playouts
see) are applied to the same position and set against what Hard did. Prints, per kind of
decision, how often the two agree. (Issue #26 measured two closer imitations with it, at
commit 6ca03a3: docs/bots.md, fourth session of 2026-12-03.)
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bots_hands import play_hand  # noqa: E402

from games.bots import get_bot  # noqa: E402
from games.bots.cardmath import BIT_VALUE, card_bit, dw, mask_from  # noqa: E402
from games.bots.gin import GinParams  # noqa: E402
from games.bots.gin_search import choose_throw, meld_feeds  # noqa: E402
from games.bots.knowledge import from_view  # noqa: E402


class _Observer:
    """Hard, scoring the playout rule's choice against its own at every decision."""

    def __init__(self, bot, seat: int, tally: dict, args) -> None:
        self.bot, self.seat, self.tally, self.args = bot, seat, tally, args
        self.state = None
        self.early = GinParams().early_knock_turns

    def see_state(self, state) -> None:
        self.state = state

    def _add(self, kind: str, agree: bool) -> None:
        row = self.tally.setdefault(kind, [0, 0])
        row[0] += agree
        row[1] += 1

    def choose(self, view, legal):
        act = str(self.bot.choose(view, legal))
        know = from_view(view)
        kinds = {str(a).split(":")[0] for a in legal}
        h = know.hand
        top = know.top
        if top and ("take_upcard" in kinds or "draw" in kinds):
            dh = dw(h)
            v = BIT_VALUE[top]
            take = bool(top & meld_feeds(h)) and dw(h | top) < dh + v
            if not take and know.knock_limit and v <= 4 and know.my_draws <= 6 and dh > 4:
                low = choose_throw(h | top, top, 0, 0.0)[2]
                take = low <= know.knock_limit and low < dh - 4
            hard_take = act in ("take_upcard", "draw:discard")
            self._add("take" if hard_take else "no take", take == hard_take)
        elif "discard" in kinds:
            self._discard(know, act)
        return act

    def _discard(self, know, act: str) -> None:
        h = know.hand
        forbid = know.taken or 0
        b, _d, kbest, _kb = choose_throw(h, forbid, 0, 0.0)
        limit = know.knock_limit
        hard_knock = act.startswith(("knock", "gin"))
        if kbest == 0:
            self._add("gin", hard_knock)
            return
        if limit and kbest <= limit:
            knock = know.my_draws <= self.early or know.stock <= 4
            if not knock:
                other = mask_from(self.state.hands[1 - self.seat])
                knock = dw(other) - kbest >= self.args.margin
            self._add("knock (Hard knocked)" if hard_knock else "knock (Hard played on)",
                      knock == hard_knock)
        if act.startswith("discard:"):
            self._add("throw", card_bit(act.split(":")[1]) == b)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mode", default="classic")
    ap.add_argument("--hands", type=int, default=300)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--margin", type=float, default=8.0)
    args = ap.parse_args()
    tally: dict = {}
    for i in range(args.hands):
        bots = [
            _Observer(get_bot("hard", seed=f"{args.seed}:{i}:{s}"), s, tally, args)
            for s in (0, 1)
        ]
        play_hand(args.mode, bots, args.seed * 1000 + i)
    print(f"{args.hands} {args.mode} hands, Hard vs Hard, seed {args.seed}, margin {args.margin}")
    for kind in sorted(tally):
        agree, n = tally[kind]
        print(f"  {kind:26s} {n:6d} decisions, the playout rule agrees {agree / n:6.1%}")


if __name__ == "__main__":
    main()
