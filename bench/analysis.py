"""The analyser's speed per game and mode, and a sanity check of its evaluator by level.

    .venv/bin/python bench/analysis.py speed [--modes classic,straight,oklahoma,hollywood,rummy]
        [--games 5] [--seed 1] [--jobs 1] [--target N]
    .venv/bin/python bench/analysis.py levels [--pairs hard-expert,easy-medium] [--games 200]
        [--target 100] [--mode classic] [--seed 1] [--jobs 1] [--dump losses.json]

``speed`` plays seeded whole games (Hard against the Expert, the mode's own target; Basic
Rummy with two players; ``--target`` for shorter games) and analyses each once: seconds per
game, wall clock and the process's CPU time (what one core spends; the machine is shared,
so the CPU time is the figure to compare with the goal of 20 s per 100-point Classic game),
p50 and p95 per mode, with moves per game.

``levels`` plays the same seeded games for each pair of levels (the first level of a pair
sits in seat 0 in even games and seat 1 in odd ones) and analyses both seats of every game:
per level, judged decisions, average loss per decision, accuracy, the loss percentiles and
the share of each judgement. On the same games Hard's decisions must lose more than the
Expert's; the loss distributions are what docs/analysis.md chose the thresholds from.
``--dump`` writes every judged decision's (level, loss) to a JSON file, to try other
thresholds without analysing again. Run it under ``nice -n 10``: it is long.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from games.bots import get_bot  # noqa: E402
from games.bots.analysis import JUDGEMENTS, analyse  # noqa: E402
from games.bots.analysis.report import decision_accuracy  # noqa: E402
from games.bots.match import play_game  # noqa: E402
from games.engine import GameRecord  # noqa: E402


def _pct(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * (len(s) - 1) + 0.5))]


def _record(mode: str, levels: list[str], seed: int, target: int | None) -> GameRecord:
    # The Expert without its 3 s safety net, so that a loaded machine cannot change the games.
    bots = [
        get_bot(lv, seed=seed * 10 + i, **({"hard_limit": 1e9} if lv == "expert" else {}))
        for i, lv in enumerate(levels)
    ]
    settings: dict[str, object] | None = None
    if target:
        settings = {"targets": [[len(levels), target]]} if mode == "rummy" else {"target": target}
    state = play_game(mode, bots, seed, settings=settings)
    return GameRecord.from_state(state, players=levels)


def _speed_one(args: tuple[str, int, int | None]) -> tuple[str, int, float, float]:
    mode, seed, target = args
    rec = _record(mode, ["hard", "expert"], seed, target)
    t0, c0 = time.perf_counter(), time.process_time()
    analyse(rec, seed=seed)
    return mode, len(rec.moves), time.perf_counter() - t0, time.process_time() - c0


def speed(opts: argparse.Namespace) -> None:
    modes = opts.modes.split(",")
    jobs = [(m, opts.seed + g, opts.target) for m in modes for g in range(opts.games)]
    with ProcessPoolExecutor(opts.jobs) as pool:
        results = list(pool.map(_speed_one, jobs))
    target = opts.target or "the mode's"
    print(f"analysis time per game, Hard vs Expert whole games (target {target}), "
          f"{opts.games} per mode, "
          f"seeds {opts.seed}..{opts.seed + opts.games - 1}, jobs {opts.jobs}")
    print(f"{'mode':10} {'games':>5} {'moves p50':>9} {'cpu p50':>8} {'cpu p95':>8} "
          f"{'cpu max':>8} {'wall p50':>9} {'wall p95':>9} {'ms/move':>8}")
    for m in modes:
        rows = [r for r in results if r[0] == m]
        moves = [float(r[1]) for r in rows]
        cpu = [r[3] for r in rows]
        wall = [r[2] for r in rows]
        per_move = 1000 * sum(cpu) / max(sum(moves), 1)
        print(f"{m:10} {len(rows):>5} {_pct(moves, .5):>9.0f} {_pct(cpu, .5):>8.1f} "
              f"{_pct(cpu, .95):>8.1f} {max(cpu):>8.1f} {_pct(wall, .5):>9.1f} "
              f"{_pct(wall, .95):>9.1f} {per_move:>8.1f}")


def _levels_one(args: tuple[str, str, str, int, int | None]) -> list[tuple[str, float, str]]:
    mode, a, b, seed, target = args
    levels = [a, b] if seed % 2 == 0 else [b, a]
    rec = _record(mode, levels, seed, target)
    res = analyse(rec, seed=seed)
    return [
        (levels[d.seat], d.loss, d.judgement) for d in res.decisions if d.judgement != "forced"
    ]


def levels(opts: argparse.Namespace) -> None:
    pairs = [p.split("-") for p in opts.pairs.split(",")]
    jobs = [
        (opts.mode, a, b, opts.seed + g, opts.target)
        for a, b in pairs
        for g in range(opts.games)
    ]
    t0 = time.perf_counter()
    losses: dict[str, list[float]] = defaultdict(list)
    counts: dict[str, dict[str, int]] = defaultdict(lambda: dict.fromkeys(JUDGEMENTS, 0))
    with ProcessPoolExecutor(opts.jobs) as pool:
        for done, chunk in enumerate(pool.map(_levels_one, jobs), start=1):
            for level, loss, judgement in chunk:
                losses[level].append(loss)
                counts[level][judgement] += 1
            if done % opts.every == 0 or done == len(jobs):
                _table(opts, done, len(jobs), time.perf_counter() - t0, losses, counts)
                if opts.dump:
                    with open(opts.dump, "w") as fh:
                        json.dump({"games": done, "losses": dict(losses)}, fh)


def _table(
    opts: argparse.Namespace,
    done: int,
    total: int,
    seconds: float,
    losses: dict[str, list[float]],
    counts: dict[str, dict[str, int]],
) -> None:
    """The figures so far (printed every ``--every`` games: a long run can be cut short)."""
    print(f"{opts.mode}, pairs {opts.pairs}, {done} of {total} seeded games (the first "
          f"{opts.games} seeds from {opts.seed} per pair, in order; target "
          f"{opts.target or 'default'}), {seconds:.0f} s")
    head = " ".join(f"{j:>10}" for j in JUDGEMENTS)
    print(f"{'level':8} {'decisions':>9} {'avg loss':>8} {'accuracy':>8} {'p50':>5} {'p75':>5} "
          f"{'p90':>5} {'p95':>5} {'p99':>5} {head}")
    for level in ("easy", "medium", "hard", "expert"):
        xs = losses.get(level)
        if not xs:
            continue
        acc = sum(decision_accuracy(x) for x in xs) / len(xs)
        shares = " ".join(f"{100 * counts[level][j] / len(xs):>9.1f}%" for j in JUDGEMENTS)
        print(f"{level:8} {len(xs):>9} {sum(xs) / len(xs):>8.3f} {acc:>7.2f}% "
              f"{_pct(xs, .5):>5.1f} {_pct(xs, .75):>5.1f} {_pct(xs, .9):>5.1f} "
              f"{_pct(xs, .95):>5.1f} {_pct(xs, .99):>5.1f} {shares}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    sp = sub.add_parser("speed")
    sp.add_argument("--modes", default="classic,straight,oklahoma,hollywood,rummy")
    sp.add_argument("--games", type=int, default=5)
    sp.add_argument("--seed", type=int, default=1)
    sp.add_argument("--jobs", type=int, default=1)
    sp.add_argument("--target", type=int, default=None)
    lv = sub.add_parser("levels")
    lv.add_argument("--pairs", default="hard-expert,easy-medium")
    lv.add_argument("--games", type=int, default=200)
    lv.add_argument("--target", type=int, default=None)
    lv.add_argument("--mode", default="classic")
    lv.add_argument("--seed", type=int, default=1)
    lv.add_argument("--jobs", type=int, default=1)
    lv.add_argument("--dump", default=None)
    lv.add_argument("--every", type=int, default=10)
    opts = parser.parse_args()
    (speed if opts.cmd == "speed" else levels)(opts)


if __name__ == "__main__":
    main()
