"""Pairing speed: a Swiss round of a big field and an arena wave of free players.

    .venv/bin/python bench/tournaments.py [--swiss 1000] [--rounds 7] [--arena 500] [--seed 1]

Swiss: ``--swiss`` players with random ratings play ``--rounds`` rounds with random results;
every round's pairing is timed (the later rounds have score groups and histories to respect).
Arena: a wave of ``--arena`` free players with random points and last opponents, timed over
five waves. Prints the median and the slowest time, and checks the pairings as it goes.
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from leaderboards.tournaments import pairing as P  # noqa: E402


def swiss(n: int, rounds: int, rng: random.Random) -> list[float]:
    ratings = {p: rng.randint(800, 2400) for p in range(n)}
    score = dict.fromkeys(ratings, 0.0)
    met: dict[int, set[int]] = {p: set() for p in ratings}
    byes: set[int] = set()
    times, repeats = [], 0
    for _ in range(rounds):
        players = [P.SwissPlayer(p, score[p], ratings[p], frozenset(met[p]), p in byes)
                   for p in ratings]
        t = time.perf_counter()
        pairs, bye = P.swiss_pairings(players)
        times.append(time.perf_counter() - t)
        assert len(pairs) * 2 + (bye is not None) == n
        for a, b in pairs:
            repeats += b in met[a]
            # the higher rated wins two times in three
            w = a if (ratings[a] >= ratings[b]) == (rng.random() < 2 / 3) else b
            score[w] += 1
            met[a].add(b)
            met[b].add(a)
        if bye is not None:
            score[bye] += 1
            byes.add(bye)
    print(f"swiss  {n:>5} players  {rounds} rounds  repeats {repeats}  "
          f"median {statistics.median(times) * 1000:7.1f} ms  max {max(times) * 1000:7.1f} ms")
    return times


def arena(n: int, waves: int, rng: random.Random) -> list[float]:
    times = []
    for _ in range(waves):
        ids = list(range(n))
        players = [P.ArenaPlayer(p, rng.randint(0, 30), rng.randint(800, 2400),
                                 rng.choice(ids) if rng.random() < 0.9 else None)
                   for p in ids]
        t = time.perf_counter()
        pairs = P.arena_pairings(players)
        times.append(time.perf_counter() - t)
        assert len(pairs) >= n // 2 - 1
    print(f"arena  {n:>5} free     {waves} waves   "
          f"pairs {len(pairs)}  median {statistics.median(times) * 1000:7.1f} ms  "
          f"max {max(times) * 1000:7.1f} ms")
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--swiss", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--arena", type=int, default=500)
    parser.add_argument("--waves", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    swiss(args.swiss, args.rounds, rng)
    arena(args.arena, args.waves, rng)


if __name__ == "__main__":
    main()
