"""Hand-level duplicate comparison of two bots: mean net points per hand with its error.

    .venv/bin/python bench/bots_hands.py --a expert --b hard --deals 300 [--mode classic]
        [--seed 1] [--jobs 1] [--opt time_budget=0.1 ...]

Each deal (one hand) is played twice with the seats swapped; A's net points (A's hand points
minus B's) are averaged per deal pair, which cancels most of the luck of the cards. This is
a quick screening tool for bot changes (a difference of one point per hand is worth several
percent of whole games); confirm with ``python -m games.bots.match``.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from games.bots import get_bot  # noqa: E402
from games.engine import apply, legal_actions, new_game, view_for  # noqa: E402


def bot_options(pairs: list[str]) -> dict:
    out = {}
    for p in pairs:
        k, _, v = p.partition("=")
        try:
            out[k] = int(v)
        except ValueError:
            try:
                out[k] = float(v)
            except ValueError:
                out[k] = {"true": True, "false": False}.get(v.lower(), v)
    return out


def play_hand(mode: str, bots: list, game_seed: int) -> tuple:
    """One hand of ``bots`` (seat order) from ``new_game(mode, seed=game_seed)``: its
    ``HandResult`` and each seat's slowest decision in seconds."""
    state = new_game(mode, seed=game_seed)
    slowest = [0.0] * len(bots)
    while not state.hand_results and not state.is_over:
        seat = state.to_act
        see = getattr(bots[seat], "see_state", None)
        if see is not None:  # a diagnostic bot that may see everything (expert_variants)
            see(state)
        t0 = time.perf_counter()
        act = bots[seat].choose(view_for(state, seat), legal_actions(state))
        slowest[seat] = max(slowest[seat], time.perf_counter() - t0)
        state = apply(state, act, seat=seat)[0]
    return state.hand_results[0], slowest


def duplicate_hand(mode: str, a: str, b: str, opts: dict, seed: int,
                   deal: int) -> tuple[float, float]:
    """Deal ``deal`` played twice with the seats swapped (the same bot seeds each time):
    A's mean net points (A's hand points minus B's) and A's slowest decision. ``opts`` go to
    A's constructor only (A's seat, so A and B may be the same level)."""
    net = 0.0
    slow = 0.0
    for arr in (0, 1):
        names = [a, b] if arr == 0 else [b, a]
        bots = [
            get_bot(n, seed=f"{seed}:{deal}:{arr}:{s}", **(opts if s == arr else {}))
            for s, n in enumerate(names)
        ]
        hr, slowest = play_hand(mode, bots, seed * 1_000_003 + deal)
        slow = max(slow, slowest[arr])
        if hr.winner is not None:
            net += hr.points if hr.winner == arr else -hr.points
    return net / 2, slow


def deals_parser(doc: str) -> argparse.ArgumentParser:
    """The options of a screen on duplicate deals (this one and bots_variants.py): the mode,
    bot A (the one varied) and bot B, how many deals from which seed, and on how many
    processes."""
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("--mode", default="classic")
    ap.add_argument("--a", default="expert")
    ap.add_argument("--b", default="hard")
    ap.add_argument("--deals", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=1)
    return ap


def map_deals(play, work: list, jobs: int, chunksize: int) -> list:
    """``play`` on every deal of ``work``, on ``jobs`` processes; the results in order."""
    if jobs > 1:
        with ProcessPoolExecutor(jobs) as ex:
            return list(ex.map(play, work, chunksize=chunksize))
    return [play(w) for w in work]


def _deal(args: tuple) -> tuple[float, float]:
    mode, a, b, seed, deal, opts = args
    return duplicate_hand(mode, a, b, opts, seed, deal)


def main() -> None:
    ap = deals_parser(__doc__)
    ap.add_argument("--opt", action="append", default=[], help="option for bot A: key=value")
    args = ap.parse_args()
    opts = bot_options(args.opt)
    work = [(args.mode, args.a, args.b, args.seed, d, opts) for d in range(args.deals)]
    t0 = time.time()
    res = map_deals(_deal, work, args.jobs, chunksize=4)
    nets = [r[0] for r in res]
    n = len(nets)
    mean = sum(nets) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in nets) / max(n - 1, 1))
    se = sd / math.sqrt(n)
    print(
        f"{args.mode} {args.a}{opts or ''} vs {args.b}: {n} deal pairs, seed {args.seed}: "
        f"A net {mean:+.2f} pts/hand (SE {se:.2f}, "
        f"95% {mean - 1.96 * se:+.2f}..{mean + 1.96 * se:+.2f})"
        f"  max A decision {max(r[1] for r in res) * 1000:.0f} ms  {time.time() - t0:.0f} s"
    )


if __name__ == "__main__":
    main()
