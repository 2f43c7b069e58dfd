"""Fixed-count sampling of option values on common samples (no clock: deterministic).

Every option is valued on the same samples (common random numbers), so their differences are
much less noisy than their values. Sampling runs in stages: all options get the first stage's
samples, then only the options still close to the best (within ``keep_points`` points or
``keep_errors`` standard errors of the paired difference) are sampled on to the next stage's
total, and so on; an option dropped early keeps its early estimate (and its larger spread).
The option played is never dropped, so a loss is always measured on the full sample count.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

__all__ = ["Budget", "Estimate", "estimate", "best_first"]

S = TypeVar("S")


@dataclass(frozen=True)
class Budget:
    stages: tuple[int, ...] = (8, 24, 48)  # total samples after each stage
    keep_points: float = 1.5  # an option within this many points of the best is kept ...
    keep_errors: float = 2.5  # ... or within this many standard errors of the difference

    @property
    def full(self) -> int:
        return self.stages[-1]


@dataclass(frozen=True)
class Estimate:
    mean: float
    spread: float  # standard error of the mean
    n: int


class _Acc:
    __slots__ = ("n", "s", "ss")

    def __init__(self) -> None:
        self.n = 0
        self.s = 0.0
        self.ss = 0.0

    def add(self, v: float) -> None:
        self.n += 1
        self.s += v
        self.ss += v * v

    def mean(self) -> float:
        return self.s / self.n if self.n else 0.0

    def error(self) -> float:
        if self.n < 2:
            return 0.0
        m = self.s / self.n
        var = max(self.ss / self.n - m * m, 0.0) * self.n / (self.n - 1)
        return float((var / self.n) ** 0.5)


def estimate(
    n_options: int,
    draw: Callable[[int], S],
    value: Callable[[int, S], float],
    budget: Budget,
    always: Sequence[int] = (),
) -> list[Estimate]:
    """Each option's mean value over samples ``draw(0), draw(1), ...`` (``value(option,
    sample)``), in stages as the module says; the options in ``always`` (the one played) are
    sampled to the end whatever their values."""
    accs = [_Acc() for _ in range(n_options)]
    rows: list[dict[int, float]] = []  # per sample, the values of the options sampled on it
    live = list(range(n_options))
    done = 0
    for stage, upto in enumerate(budget.stages):
        if stage and len(live) > 1:
            live = _close(live, rows, accs, budget, always)
        if len(live) <= 1 and stage:
            break
        for k in range(done, upto):
            smp = draw(k)
            row = {}
            for i in live:
                v = value(i, smp)
                row[i] = v
                accs[i].add(v)
            rows.append(row)
        done = upto
    return [Estimate(a.mean(), a.error(), a.n) for a in accs]


def _close(
    live: list[int],
    rows: list[dict[int, float]],
    accs: list[_Acc],
    budget: Budget,
    always: Sequence[int],
) -> list[int]:
    """The options of ``live`` still close to the best one (paired over common samples)."""
    best = max(live, key=lambda i: accs[i].mean())
    keep = []
    for i in live:
        if i == best or i in always:
            keep.append(i)
            continue
        diff = _Acc()
        for row in rows:
            diff.add(row[best] - row[i])
        gap = diff.mean()
        if gap <= budget.keep_points or gap <= budget.keep_errors * diff.error():
            keep.append(i)
    return keep


def best_first(actions: Sequence[str], estimates: Sequence[Estimate]) -> list[int]:
    """Option indices, best value first (ties: the order given)."""
    return sorted(range(len(actions)), key=lambda i: (-estimates[i].mean, i))
