"""Fit ``games/bots/knock_table.py``: how often Hard knocks when it may, by how long the
other player has drawn and its own deadwood (issue #26).

    .venv/bin/python bench/knock_table.py --hands 3000 --seed 2690 [--write]

Hard plays Hard in single Classic hands. At every discard where Hard could knock but its
early rule does not decide (it has drawn more than ``early_knock_turns`` times and the stock
holds more than 4 cards), the recorder notes the other player's draws (stock draws and
takes), the least deadwood Hard could knock with and whether it knocked. Hard decides those
knocks on sampled hands of the other player (``gin.knock_pays``), which after a few draws
look good enough to undercut it, so it knocks ever less often as the other player draws,
almost whatever the real hands hold. The Expert's playouts imitate that with this table
instead of comparing the two real hands (``gin_search.playout``, ``sim_knocks``).

Each cell is the share of knocks among the decisions with that many draws (capped at
``MAX_DRAWS``) and deadwood group (``KNOCK_GROUPS``), shrunk towards its row's share with the
weight of ``PRIOR`` decisions. Printed: the table and its decision counts. ``--write`` stores
it in ``games/bots/knock_table.py``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bots_hands import play_hand  # noqa: E402

from games.bots import get_bot  # noqa: E402
from games.bots.gin import GinParams  # noqa: E402
from games.bots.gin_search import KNOCK_GROUPS, MAX_DRAWS, choose_throw, knock_group  # noqa: E402
from games.bots.knowledge import from_view  # noqa: E402

TABLE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                     "games", "bots", "knock_table.py")
PRIOR = 5.0


class _Recorder:
    """Hard, noting (other's draws, deadwood group, knocked) where its knock rule judged."""

    def __init__(self, bot, rows: list) -> None:
        self.bot, self.rows = bot, rows
        self.early = GinParams().early_knock_turns

    def choose(self, view, legal):
        act = str(self.bot.choose(view, legal))
        if any(str(a).startswith("discard:") for a in legal):
            know = from_view(view)
            kbest = choose_throw(know.hand, know.taken or 0, 0, 0.0)[2]
            limit = know.knock_limit
            if 0 < kbest <= limit and know.my_draws > self.early and know.stock > 4:
                opp = know.opponent()
                draws = min(opp.stock_draws + opp.took.bit_count(), MAX_DRAWS)
                self.rows.append((draws, knock_group(kbest), act.startswith("knock")))
        return act


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hands", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=2690)
    ap.add_argument("--write", action="store_true")
    args = ap.parse_args()
    t0 = time.perf_counter()
    rows: list = []
    for h in range(args.hands):
        bots = [_Recorder(get_bot("hard", seed=f"{args.seed}:{h}:{s}"), rows) for s in (0, 1)]
        play_hand("classic", bots, args.seed * 1000 + h)
    groups = len(KNOCK_GROUPS)
    table = []
    counts = []
    for d in range(MAX_DRAWS + 1):
        mine = [r for r in rows if r[0] == d]
        row_share = sum(r[2] for r in mine) / len(mine) if mine else 0.0
        cells = []
        ns = []
        for g in range(groups):
            cell = [r[2] for r in mine if r[1] == g]
            cells.append(round((sum(cell) + PRIOR * row_share) / (len(cell) + PRIOR), 3))
            ns.append(len(cell))
        table.append(tuple(cells))
        counts.append(ns)
    print(f"{args.hands} Classic hands, Hard vs Hard, seed {args.seed}: {len(rows)} knock "
          f"decisions, {time.perf_counter() - t0:.0f} s")
    print("draws  " + "  ".join(f"dw {lo}-{hi:<6}" for lo, hi in KNOCK_GROUPS))
    for d, (cells, ns) in enumerate(zip(table, counts, strict=True)):
        print(f"{d:5d}  " + "  ".join(f"{p:5.2f} ({n:4d})" for p, n in zip(cells, ns,
                                                                          strict=True)))
    if args.write:
        lines = [
            '"""How often Hard knocks when it may, by the other player\'s draws (rows, 0 to',
            "``gin_search.MAX_DRAWS``) and its deadwood group (``gin_search.KNOCK_GROUPS``),",
            "written by",
            f"``.venv/bin/python bench/knock_table.py --hands {args.hands} --seed {args.seed} "
            "--write``",
            '(do not edit by hand)."""',
            "",
            "KNOCK_TABLE = (",
            *(f"    {cells!r}," for cells in table),
            ")",
        ]
        with open(TABLE, "w") as f:
            f.write("\n".join(lines) + "\n")
        print(f"wrote {TABLE}")


if __name__ == "__main__":
    main()
