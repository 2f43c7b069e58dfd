"""Fixed-count sampling of option values on common samples (no clock: deterministic).

Every option is valued on the same samples (common random numbers), so their differences are
much less noisy than their values. Sampling runs in stages: all options get ``first`` samples,
then only the options still close to the best (within ``keep_points`` points or
``keep_errors`` standard errors of the paired difference) are sampled on to ``full``; an
option dropped early keeps its early estimate (and its larger spread).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

__all__ = ["Budget", "Estimate", "estimate", "best_first"]

S = TypeVar("S")


@dataclass(frozen=True)
class Budget:
    first: int = 16  # samples every option gets
    full: int = 48  # samples the close options get
    keep_points: float = 1.5  # an option within this many points of the best is kept ...
    keep_errors: float = 2.5  # ... or within this many standard errors of the difference


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
) -> list[Estimate]:
    """Each option's mean value over samples ``draw(0), draw(1), ...`` (``value(option,
    sample)``), in stages as the module says."""
    accs = [_Acc() for _ in range(n_options)]
    samples: list[S] = []
    rows: list[list[float]] = []  # per sample, the values of the options sampled so far
    for k in range(budget.first):
        smp = draw(k)
        samples.append(smp)
        row = [value(i, smp) for i in range(n_options)]
        rows.append(row)
        for i, v in enumerate(row):
            accs[i].add(v)
    if n_options > 1 and budget.full > budget.first:
        best = max(range(n_options), key=lambda i: accs[i].mean())
        keep = []
        for i in range(n_options):
            if i == best:
                keep.append(i)
                continue
            diff = _Acc()
            for row in rows:
                diff.add(row[best] - row[i])
            gap = diff.mean()
            if gap <= budget.keep_points or gap <= budget.keep_errors * diff.error():
                keep.append(i)
        if len(keep) > 1:
            for k in range(budget.first, budget.full):
                smp = draw(k)
                for i in keep:
                    accs[i].add(value(i, smp))
    return [Estimate(a.mean(), a.error(), a.n) for a in accs]


def best_first(actions: Sequence[str], estimates: Sequence[Estimate]) -> list[int]:
    """Option indices, best value first (ties: the order given)."""
    return sorted(range(len(actions)), key=lambda i: (-estimates[i].mean, i))
