"""How often Basic Rummy's hands end in a stalemate when computers play, and why.

    .venv/bin/python bench/rummy_stalemates.py --bots medium,medium,medium --hands 300 \\
        [--seed 1] [--jobs 2] [--examples 3]

Plays ``--hands`` single hands (deal ``seed * 1_000_003 + n``), each seat a seeded bot, and
prints the share of stalemates with its 95% interval, their reasons, how many cards were left
at a stalemate, how long the hands lasted (turns, reshuffles) and, with ``--examples``, the
table and hands of a few stalemates. The same seed plays the same hands whatever the load.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bots_hands import bot_options, map_deals  # noqa: E402

from games.bots import get_bot  # noqa: E402
from games.engine import apply, legal_actions, new_game, view_for  # noqa: E402
from games.engine.actions import ActionKind  # noqa: E402
from games.engine.cards import cards_of  # noqa: E402


def make_bot(spec: str, seed: str):
    """``medium`` or ``medium+rummy_outs=0``: a level with constructor options."""
    name, *pairs = spec.split("+")
    return get_bot(name, seed=seed, **bot_options(pairs))


def play_hand(args: tuple) -> dict:
    names, seed, deal, turn = args
    order = names[turn:] + names[:turn]  # lineup position p sits in seat (p - turn) % n
    bots = [make_bot(n, f"{seed}:{deal}:{(s + turn) % len(names)}") for s, n in enumerate(order)]
    state = new_game("rummy", seed=seed * 1_000_003 + deal, num_players=len(names))
    draws = 0
    while not state.hand_results and not state.is_over:
        seat = state.to_act
        act = bots[seat].choose(view_for(state, seat), legal_actions(state))
        if act.kind in (ActionKind.DRAW_STOCK, ActionKind.DRAW_DISCARD):
            draws += 1
        before = state
        state = apply(state, act, seat=seat)[0]
    hr = state.hand_results[0]
    return {
        "stalemate": hr.winner is None,
        "reason": hr.reason,
        "left": [len(r) for r in hr.remaining],
        "remaining": [" ".join(r) for r in hr.remaining],
        "table": [" ".join(c.text for c in cards_of(mm)) for _, mm in before.table],
        "turns": draws,
        "reshuffles": before.reshuffles,
        "rummy": hr.going_rummy,
        # by lineup position: the points this hand scored for it
        "points": [
            hr.points if hr.winner == (p - turn) % len(names) else 0 for p in range(len(names))
        ],
    }


def interval(k: int, n: int) -> tuple[float, float]:
    """Wilson's 95% interval of k in n."""
    if n == 0:
        return 0.0, 0.0
    z = 1.96
    p = k / n
    den = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return mid - half, mid + half


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bots", default="medium,medium,medium", help="one bot per seat")
    ap.add_argument("--hands", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument(
        "--rotate", action="store_true", help="play every deal with the lineup in every seat"
    )
    ap.add_argument("--examples", type=int, default=0, help="stalemates to print in full")
    args = ap.parse_args()
    names = [n.strip() for n in args.bots.split(",") if n.strip()]
    t0 = time.time()
    turns = range(len(names)) if args.rotate else range(1)
    work = [(names, args.seed, d, t) for d in range(args.hands) for t in turns]
    res = map_deals(play_hand, work, args.jobs, 4)
    n = len(res)
    stale = [r for r in res if r["stalemate"]]
    lo, hi = interval(len(stale), n)
    print(
        f"rummy · {len(names)} players · {','.join(names)} · {n} hands · seed {args.seed} · "
        f"{time.time() - t0:.1f} s"
    )
    print(f"stalemates: {len(stale)} of {n} = {len(stale) / n:.1%} (95% {lo:.1%}-{hi:.1%})")
    for reason, k in Counter(r["reason"] for r in stale).most_common():
        print(f"  {k:5d}  {reason}")
    if stale:
        left = Counter(sum(r["left"]) for r in stale)
        print("cards left in all hands at a stalemate: " + ", ".join(
            f"{c}: {k}" for c, k in sorted(left.items())))
    won = [r for r in res if not r["stalemate"]]
    if won:
        print(
            f"hands won: turns mean {sum(r['turns'] for r in won) / len(won):.1f}, "
            f"after a reshuffle {sum(1 for r in won if r['reshuffles']) / len(won):.1%}, "
            f"going rummy {sum(1 for r in won if r['rummy']) / len(won):.1%}"
        )
    for p, name in enumerate(names):
        pts = [r["points"][p] for r in res]
        wins = sum(1 for x in pts if x)
        print(f"  {p + 1}. {name}: won {wins / n:.1%} of hands, {sum(pts) / n:.2f} points a hand")
    for r in stale[: args.examples]:
        print(f"  {r['reason']} after {r['turns']} turns: hands {r['remaining']}")
        print(f"    table: {' | '.join(r['table'])}")


if __name__ == "__main__":
    main()
