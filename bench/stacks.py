"""Read a py-spy profile in the collapsed form (``bench/ws_load.py --profile FILE``): the share
of samples in each function, inclusive (anywhere on the stack) and exclusive (the frame that
was running), over the busy samples (a thread waiting in a poll or a lock is idle, not cost).

    .venv/bin/python bench/stacks.py FILE [--top 40] [--match TEXT]

``--match`` keeps the functions whose name or file contains TEXT.
"""
from __future__ import annotations

import argparse
import sys
from collections import Counter

IDLE = ("select (", "poll (", "epoll", "_wait_for_tstate_lock", "wait (threading",
        "_worker (concurrent", "get (queue", "sleep", "kqueue", "acquire", "doPoll",
        "_run_once (asyncio", "Connection.wait (psycopg")
# (psycopg's ``Connection.wait`` waits for PostgreSQL's answer in C: idle, though py-spy
# samples it as running.)


def read(path: str) -> tuple[list[tuple[list[str], int]], int]:
    stacks, total = [], 0
    with open(path) as lines:
        for line in lines:
            stack, _, count = line.rstrip("\n").rpartition(" ")
            if not stack:
                continue
            frames = stack.split(";")
            n = int(count)
            total += n
            stacks.append((frames, n))
    return stacks, total


def busy(frames: list[str]) -> bool:
    """False for a sample whose running frame is a wait (a poll, a lock, a queue)."""
    return not any(mark in frames[-1] for mark in IDLE)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("file")
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--match", default="")
    parser.add_argument("--exclusive", action="store_true",
                        help="rank by the samples a function itself was running")
    args = parser.parse_args()
    stacks, total = read(args.file)
    working = [(f, n) for f, n in stacks if busy(f)]
    samples = sum(n for _, n in working)
    if not samples:
        print("no busy samples", file=sys.stderr)
        return 1
    inclusive: Counter[str] = Counter()
    exclusive: Counter[str] = Counter()
    for frames, n in working:
        for name in set(frames):
            inclusive[name] += n
        exclusive[frames[-1]] += n
    print(f"{samples} busy samples of {total} ({100 * samples / total:.0f}%)")
    print(f"{'incl %':>7} {'excl %':>7}  function (file:line)")
    ranked = exclusive if args.exclusive else inclusive
    for name, _ in ranked.most_common():
        n = inclusive[name]
        if args.match and args.match not in name:
            continue
        print(f"{100 * n / samples:7.1f} {100 * exclusive[name] / samples:7.1f}  {name}")
        args.top -= 1
        if args.top <= 0:
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())
