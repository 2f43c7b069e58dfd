"""Game equity: the chance of winning the game from a score, for score-aware search.

A gin game is won by the first player to reach the target (the game bonus of 100 makes the
grand total follow the race almost always), so a hand's points are worth more or less than
their face value depending on the score: at 90-20 any won hand ends the game, at 20-90 a
small loss may lose it. ``GameEquity`` turns a hand result (points for me, negative for the
opponent) into the chance of winning the game from the new score, by a table computed once
per (mode, target) from the distribution of hand results between two equal players:

    E(a, b) = (sum_x p(x) E(a - x, b) + sum_x p(x) E(a, b - x)) / (1 - p_drawn)

where ``a``, ``b`` are the points each side still needs (E(<=0, b) = 1, E(a, <=0) = 0) and
``p(x)`` is the chance that a given player wins a hand by ``x`` points. The distributions
below are Hard against Hard, 2000 single hands per mode (``bench/bots_equity.py --hands 2000
--seed 7``): winner's points in 5-point bins (bin mean, probability).

``value(points)`` rescales the equity change to points at the current score (divided by the
equity a point is worth there), so that early in a game it is close to the hand's points and
thresholds stated in points keep their meaning.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

from games.engine.modes import GinMode

__all__ = [
    "HAND_RESULTS",
    "equity_table",
    "hands_table",
    "GameEquity",
    "MatchEquity",
    "ended_difference",
    "hollywood_value",
    "simulate_match",
]

# mode -> (share of drawn hands, ((winner's points, probability), ...))
# fmt: off
HAND_RESULTS: dict[str, tuple[float, tuple[tuple[float, float], ...]]] = {
    "classic": (
        0.0005,
        (
            (3.1, 0.1285), (7.8, 0.145), (12.9, 0.116), (17.9, 0.091), (23.3, 0.1035),
            (27.6, 0.164), (32.9, 0.09), (37.8, 0.064), (42.8, 0.038), (47.9, 0.0255),
            (53.1, 0.018), (57.7, 0.0085), (62.8, 0.004), (68.0, 0.002), (72.5, 0.001),
            (76.0, 0.0005),
        ),
    ),
    "oklahoma": (
        0.0080,
        (
            (3.1, 0.1215), (7.9, 0.12), (12.7, 0.082), (17.9, 0.0675), (23.4, 0.0645),
            (27.7, 0.163), (32.9, 0.104), (37.5, 0.059), (43.0, 0.035), (48.1, 0.034),
            (53.1, 0.0355), (58.1, 0.0255), (63.2, 0.0195), (67.8, 0.015), (73.2, 0.008),
            (78.3, 0.0105), (83.1, 0.005), (88.0, 0.0055), (93.3, 0.0015), (98.2, 0.004),
            (103.0, 0.004), (107.6, 0.0025), (114.0, 0.001), (118.7, 0.003), (146.0, 0.0005),
            (162.0, 0.0005),
        ),
    ),
    # Hollywood (``MatchEquity``): single hands from a fresh sheet, seed 7.
    "hollywood": (
        0.0005,
        (
            (3.1, 0.145), (7.9, 0.16), (12.9, 0.1305), (18.0, 0.1065), (23.2, 0.108),
            (27.7, 0.132), (32.8, 0.074), (37.8, 0.054), (42.9, 0.034), (47.9, 0.0245),
            (53.0, 0.0165), (57.8, 0.008), (63.2, 0.003), (68.0, 0.002), (72.5, 0.001),
            (76.0, 0.0005),
        ),
    ),
    "straight": (
        0.0550,
        (
            (27.4, 0.4685), (32.7, 0.2555), (37.5, 0.0915), (42.8, 0.045), (48.2, 0.0285),
            (53.0, 0.0225), (57.8, 0.013), (62.6, 0.0095), (67.2, 0.0025), (73.4, 0.0035),
            (78.7, 0.0015), (82.3, 0.0015), (90.0, 0.0005), (91.0, 0.0015),
        ),
    ),
}
# fmt: on


def _steps(mode: str) -> list[tuple[int, float]]:
    """(points, chance) of one decided hand going to a given side: each side wins a hand by
    x with probability p(x)/2, renormalised over decided hands (a drawn hand changes
    nothing, so the tables are over decided hands)."""
    _drawn, dist = HAND_RESULTS.get(mode, HAND_RESULTS["classic"])
    won = sum(p for _x, p in dist)
    return [(max(1, round(x)), p / won / 2.0) for x, p in dist]


@lru_cache(maxsize=8)
def equity_table(mode: str, target: int) -> tuple[tuple[float, ...], ...]:
    """``E[a][b]``: chance that the player needing ``a`` points beats one needing ``b``."""
    steps = _steps(mode)
    t = int(target)
    E = [[0.0] * (t + 1) for _ in range(t + 1)]
    for b in range(1, t + 1):
        E[0][b] = 1.0
    for a in range(1, t + 1):
        row = E[a]
        for b in range(1, t + 1):
            v = 0.0
            for x, p in steps:
                v += p * (E[a - x][b] if x < a else 1.0)
                v += p * (row[b - x] if x < b else 0.0)
            row[b] = v
    return tuple(tuple(r) for r in E)


class GameEquity:
    """Hand points (mine positive) -> value at the current score, in points of equity."""

    def __init__(self, mode: str, target: int, mine: int, theirs: int) -> None:
        t = int(target)
        self.table = equity_table(mode, t)
        self.a = max(t - int(mine), 1)
        self.b = max(t - int(theirs), 1)
        self.base = self.table[self.a][self.b]
        lo, hi = self.raw(-10), self.raw(10)
        self.scale = max((hi - lo) / 20.0, 1e-3)
        self._cache: dict[int, float] = {}

    def raw(self, points: int) -> float:
        """Chance of winning the game after a hand that scores ``points`` for me."""
        if points > 0:
            a = self.a - points
            return 1.0 if a <= 0 else self.table[a][self.b]
        if points < 0:
            b = self.b + points
            return 0.0 if b <= 0 else self.table[self.a][b]
        return self.base

    def value(self, points: int) -> float:
        v = self._cache.get(points)
        if v is None:
            v = (self.raw(points) - self.base) / self.scale
            self._cache[points] = v
        return v


def hollywood_value(
    mode: GinMode, sheet: dict[str, Any], won: Sequence[int], seat: int
) -> Callable[[int], float] | None:
    """Hollywood: hand points (mine positive) -> change of my three-game total minus theirs,
    from a view's ``score_sheet`` and ``hands_won`` (each seat's hands won so far); None
    without a score sheet.

    The winner's next hand won counts in the open columns the engine's
    ``mode.columns_for_win`` gives; in each it scores its points, the line bonus and, if it
    carries the column to the target, the game bonus.
    """
    cols = (sheet or {}).get("columns") or []
    if not cols:
        return None
    pts = [list(c.get("points") or [0, 0]) for c in cols]
    target = mode.target_for(2)

    def counted(who: int) -> list[int]:
        return [
            i
            for i in mode.columns_for_win(int(won[who]) + 1)
            if i < len(cols) and not cols[i].get("over")
        ]

    mine, theirs = counted(seat), counted(1 - seat)
    cache: dict[int, float] = {}

    def value(points: int) -> float:
        v = cache.get(points)
        if v is None:
            who, p = (seat, points) if points > 0 else (1 - seat, -points)
            v = 0.0
            if p:
                for i in mine if who == seat else theirs:
                    v += p + mode.line_bonus
                    if pts[i][who] + p >= target:
                        v += mode.game_bonus
                if who != seat:
                    v = -v
            cache[points] = v
        return v

    return value


@lru_cache(maxsize=8)
def hands_table(mode: str, target: int) -> tuple[tuple[float, ...], ...]:
    """``N[a][b]``: expected number of decided hands left in a race between a player needing
    ``a`` points and one needing ``b`` (the same hand results as ``equity_table``)."""
    steps = _steps(mode)
    t = int(target)
    N = [[0.0] * (t + 1) for _ in range(t + 1)]
    for a in range(1, t + 1):
        row = N[a]
        for b in range(1, t + 1):
            v = 1.0
            for x, p in steps:
                if x < a:
                    v += p * N[a - x][b]
                if x < b:
                    v += p * row[b - x]
            row[b] = v
    return tuple(tuple(r) for r in N)


def ended_difference(mode: GinMode, pts: Sequence[int], wins: Sequence[int], seat: int) -> int:
    """An ended game's total for ``seat`` minus the other's, as the engine scores it: points
    (the winner's doubled by a shutout), the game bonus and a line bonus per hand won."""
    me, them = seat, 1 - seat
    diff = pts[me] - pts[them] + mode.line_bonus * (wins[me] - wins[them])
    extra = mode.shutout_multiplier - 1
    if pts[me] > pts[them]:
        diff += mode.game_bonus + (pts[me] * extra if wins[them] == 0 else 0)
    elif pts[them] > pts[me]:
        diff -= mode.game_bonus + (pts[them] * extra if wins[me] == 0 else 0)
    return diff


def simulate_match(
    mode: GinMode, rng: random.Random
) -> tuple[list[tuple[dict[str, Any], list[int]]], float]:
    """One Hollywood match between equal players whose hands go either way with the same
    chance, for points drawn from ``HAND_RESULTS``: the (score sheet, hands won) before each
    hand, and seat 0's result (1 won, 0.5 tied, 0 lost). ``MatchEquity`` is calibrated on
    these (``bench/hollywood_equity.py``)."""
    drawn, dist = HAND_RESULTS["hollywood"]
    xs = [x for x, _p in dist]
    ps = [p for _x, p in dist]
    t = mode.target_for(2)
    pts = [[0, 0] for _ in range(mode.columns)]
    wins = [[0, 0] for _ in range(mode.columns)]
    over = [False] * mode.columns
    won = [0, 0]
    states: list[tuple[dict[str, Any], list[int]]] = []
    while not all(over):
        sheet = {
            "columns": [
                {"points": list(p), "hands_won": list(w), "over": o}
                for p, w, o in zip(pts, wins, over, strict=True)
            ]
        }
        states.append((sheet, list(won)))
        if rng.random() < drawn:
            continue
        who = rng.randrange(2)
        p = max(1, round(rng.choices(xs, ps)[0] + rng.uniform(-2.5, 2.5)))
        won[who] += 1
        for c in mode.columns_for_win(won[who]):
            if not over[c]:
                pts[c][who] += p
                wins[c][who] += 1
                over[c] = pts[c][who] >= t
    total = sum(ended_difference(mode, pts[c], wins[c], 0) for c in range(mode.columns))
    return states, 1.0 if total > 0 else 0.0 if total < 0 else 0.5


def _phi(z: float) -> float:
    return 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))


class MatchEquity:
    """Hollywood: hand points (mine positive) -> change of my chance of winning the match,
    in points at the current score (as ``GameEquity.value``).

    The match is won on the sum of the three games' totals. After a hand, that sum's
    difference is what is on the sheet (points, line bonuses, and the bonuses of the games
    that have ended) plus what is still to come in each open game. Between equal players the
    points and line bonuses still to come add nothing on average (each hand is as likely to
    go either way) except where one player's wins do not count in a game yet; the game bonus
    does: it goes to whoever reaches the target first, with the chance ``equity_table``
    gives from the points each still needs (a win that will not count there yet costs the
    player a typical hand's points of head start). The rest of the match is taken as normal
    around that mean, its spread from the game bonuses' chances and the hands each open game
    still lasts (``hands_table``), the games correlated by ``corr`` (the same hands feed
    them) and the whole scaled by ``spread``; ``bench/hollywood_equity.py`` calibrates both
    on simulated matches.
    """

    def __init__(
        self,
        mode: GinMode,
        sheet: dict[str, Any],
        won: Sequence[int],
        seat: int,
        *,
        corr: float = 0.9,
        spread: float = 1.1,
    ) -> None:
        cols = (sheet or {}).get("columns") or []
        self.mode = mode
        self.seat = seat
        self.target = mode.target_for(2)
        self.pts = [list(c.get("points") or [0, 0]) for c in cols]
        self.wins = [list(c.get("hands_won") or [0, 0]) for c in cols]
        self.over = [bool(c.get("over")) for c in cols]
        self.won = [int(won[0]), int(won[1])] if len(won) == 2 else [0, 0]
        self.corr = float(corr)
        self.spread = float(spread)
        self.E = equity_table("hollywood", self.target)
        self.N = hands_table("hollywood", self.target)
        _drawn, dist = HAND_RESULTS["hollywood"]
        total = sum(p for _x, p in dist)
        self.mean_hand = sum(x * p for x, p in dist) / total
        lb = mode.line_bonus
        self.step_sq = sum((x + lb) ** 2 * p for x, p in dist) / total
        self.base = self.chance(0)
        lo, hi = self.chance(-10), self.chance(10)
        self.scale = max((hi - lo) / 20.0, 1e-4)
        self._cache: dict[int, float] = {}

    def chance(self, points: int) -> float:
        """My chance of winning the match after a hand that scores ``points`` for me."""
        me = self.seat
        pts = [list(p) for p in self.pts]
        wins = [list(w) for w in self.wins]
        over = list(self.over)
        won = list(self.won)
        if points:
            who, p = (me, points) if points > 0 else (1 - me, -points)
            won[who] += 1
            for c in self.mode.columns_for_win(won[who]):
                if c < len(pts) and not over[c]:
                    pts[c][who] += p
                    wins[c][who] += 1
                    if pts[c][who] >= self.target:
                        over[c] = True
        return self._chance(pts, wins, over, won)

    def _chance(
        self, pts: list[list[int]], wins: list[list[int]], over: list[bool], won: list[int]
    ) -> float:
        me, them = self.seat, 1 - self.seat
        mode, t = self.mode, self.target
        lb, gb = mode.line_bonus, mode.game_bonus
        mean = 0.0
        sds: list[float] = []
        for c in range(len(pts)):
            mine, theirs = pts[c][me], pts[c][them]
            if over[c]:
                mean += ended_difference(mode, pts[c], wins[c], me)
                continue
            mean += mine - theirs + lb * (wins[c][me] - wins[c][them])
            # Wins of each player that will not count in this game yet.
            d_me, d_them = max(0, c - won[me]), max(0, c - won[them])
            a = min(t, max(1, t - mine + round(d_me * self.mean_hand)))
            b = min(t, max(1, t - theirs + round(d_them * self.mean_hand)))
            pc = self.E[a][b]
            mean += (2.0 * pc - 1.0) * gb + (d_them - d_me) * (self.mean_hand + lb)
            flow = math.sqrt(self.N[a][b] * self.step_sq)
            sds.append(2.0 * gb * math.sqrt(pc * (1.0 - pc)) + flow)
        if not sds:
            return 1.0 if mean > 0 else 0.0 if mean < 0 else 0.5
        var = sum(s * s for s in sds)
        for i in range(len(sds)):
            for j in range(i + 1, len(sds)):
                var += 2.0 * self.corr * sds[i] * sds[j]
        return _phi(mean / (self.spread * math.sqrt(var)))

    def value(self, points: int) -> float:
        v = self._cache.get(points)
        if v is None:
            v = (self.chance(points) - self.base) / self.scale
            self._cache[points] = v
        return v
