"""A bot match's records and statistics: the match's spec, each game's counts, the summary
(win rates with 95% Wilson intervals, points per hand, gin / knock / undercut counts,
decision-time percentiles) and its text report. The runner and the command line: match.py.

>>> [round(x, 3) for x in wilson(60, 100)], percentile([3, 1, 2], 50)
([0.502, 0.691], 2)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "COUNTERS",
    "LABELS",
    "GameStats",
    "MatchSpec",
    "format_report",
    "percentile",
    "summarise",
    "wilson",
]

LABELS = "ABCD"


def wilson(successes: float, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """95% Wilson score interval for a proportion (``successes`` may be fractional)."""
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of ``values``; 0.0 when empty."""
    if not values:
        return 0.0
    xs = sorted(values)
    k = max(0, min(len(xs) - 1, math.ceil(q / 100.0 * len(xs)) - 1))
    return xs[k]


@dataclass(frozen=True)
class MatchSpec:
    mode: str
    bots: tuple[str, ...]  # one name per label (A, B, ...), e.g. ("expert", "baseline")
    lineup: tuple[int, ...]  # label index for each seat of the first arrangement
    seed: int = 0
    settings: tuple[tuple[str, Any], ...] = ()
    bot_options: tuple[tuple[str, Any], ...] = ()

    @property
    def num_players(self) -> int:
        return len(self.lineup)


@dataclass
class GameStats:
    deal: int
    arrangement: int
    seats: list[int]  # label index per seat
    winner: int | None  # label index
    totals: list[int]  # per label (summed when a label holds several seats)
    hands: int = 0
    per_label: dict[int, dict[str, int]] = field(default_factory=dict)
    times: dict[int, list[float]] = field(default_factory=dict)


COUNTERS = (
    "hands",
    "hands_won",
    "hand_points",
    "gin",
    "big_gin",
    "knock_won",
    "knocks",
    "undercut_won",
    "undercut_suffered",
    "drawn",
    "going_rummy",
    "stalemate",
)


def summarise(spec: MatchSpec, games: list[GameStats], elapsed: float) -> dict[str, Any]:
    nl = len(spec.bots)
    n = len(games)
    bots = []
    for label in range(nl):
        present = [g for g in games if label in g.seats]
        wins = sum(1 for g in present if g.winner == label)
        ties = sum(1 for g in present if g.winner is None)
        # A label with several seats (e.g. A vs B,B) is judged per game, like everyone else.
        score = wins + 0.5 * ties if spec.num_players == 2 else wins
        lo, hi = wilson(score, len(present))
        counts = dict.fromkeys(COUNTERS, 0)
        times: list[float] = []
        for g in present:
            for k, v in g.per_label.get(label, {}).items():
                counts[k] += v
            times.extend(g.times.get(label, []))
        hands = counts["hands"] or 1
        seats_per_game = spec.lineup.count(label)
        bots.append(
            {
                "label": LABELS[label],
                "bot": spec.bots[label],
                "seats": seats_per_game,
                "games": len(present),
                "wins": wins,
                "ties": ties,
                "win_rate": score / len(present) if present else 0.0,
                "ci95": [lo, hi],
                "hands": counts["hands"],
                "hands_won": counts["hands_won"],
                "points_per_hand": counts["hand_points"] / hands / max(seats_per_game, 1),
                "game_points_per_game": sum(g.totals[label] for g in present)
                / max(len(present), 1),
                "gin": counts["gin"],
                "big_gin": counts["big_gin"],
                "knocks": counts["knocks"],
                "knock_won": counts["knock_won"],
                "undercut_won": counts["undercut_won"],
                "undercut_suffered": counts["undercut_suffered"],
                "going_rummy": counts["going_rummy"],
                "decisions": len(times),
                "time_ms": {
                    "p50": percentile(times, 50) * 1000,
                    "p95": percentile(times, 95) * 1000,
                    "p99": percentile(times, 99) * 1000,
                    "max": (max(times) if times else 0.0) * 1000,
                    "mean": (sum(times) / len(times) if times else 0.0) * 1000,
                },
            }
        )
    hands_total = sum(g.hands for g in games)
    drawn = sum(
        g.per_label[g.seats[0]]["drawn"] + g.per_label[g.seats[0]]["stalemate"] for g in games
    )
    return {
        "mode": spec.mode,
        "players": spec.num_players,
        "lineup": [spec.bots[i] for i in spec.lineup],
        "seed": spec.seed,
        "settings": dict(spec.settings),
        "games": n,
        "deals": len({g.deal for g in games}),
        "hands": hands_total,
        "drawn_hands": drawn,
        "elapsed_s": elapsed,
        "bots": bots,
    }


def format_report(stats: dict[str, Any]) -> str:
    lines = [
        f"{stats['mode']} · {stats['players']} players · lineup {', '.join(stats['lineup'])} · "
        f"{stats['games']} games on {stats['deals']} duplicate deals · seed {stats['seed']} · "
        f"{stats['hands']} hands ({stats['drawn_hands']} drawn) · {stats['elapsed_s']:.1f} s",
        "",
        f"{'bot':<14}{'games':>6}{'wins':>6}{'win%':>7}  {'95% CI':<14}{'pts/hand':>9}"
        f"{'gin':>6}{'knock':>7}{'ucut+':>7}{'ucut-':>7}{'rummy':>7}  "
        f"{'ms p50':>7}{'p95':>7}{'max':>8}",
    ]
    for b in stats["bots"]:
        lo, hi = b["ci95"]
        t = b["time_ms"]
        name = b["label"] + ":" + b["bot"]
        ci = f"{100 * lo:>5.1f}-{100 * hi:<5.1f}%"
        lines.append(
            f"{name:<14}{b['games']:>6}{b['wins']:>6}{100 * b['win_rate']:>6.1f}%  {ci}  "
            f"{b['points_per_hand']:>8.2f}{b['gin']:>6}{b['knocks']:>7}{b['undercut_won']:>7}"
            f"{b['undercut_suffered']:>7}{b['going_rummy']:>7}  "
            f"{t['p50']:>7.2f}{t['p95']:>7.2f}{t['max']:>8.1f}"
        )
    return "\n".join(lines)
