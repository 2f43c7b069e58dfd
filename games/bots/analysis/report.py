"""The analyser's results: options, decisions, per-seat summaries, judgements and accuracy.

Thresholds and the accuracy formula are chosen from measured loss distributions; how is
told in docs/analysis.md (bench/analysis.py prints the figures behind them).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "ANALYSER_VERSION",
    "JUDGEMENTS",
    "FORCED",
    "TIMED_OUT",
    "PLAYED_ON",
    "THRESHOLDS",
    "ACCURACY_SCALE",
    "Option",
    "Decision",
    "SeatSummary",
    "GameAnalysis",
    "judge",
    "decision_accuracy",
    "summarise",
]

# Bump whenever the numbers for the same record and seed would change.
ANALYSER_VERSION = 3
JUDGEMENTS = ("best", "good", "inaccuracy", "mistake", "blunder")
FORCED = "forced"
# a move the site played for a player whose time ran out: not the player's decision, so not
# judged (no loss, not in the accuracy); the record's sources say which (``analyse``)
TIMED_OUT = "timeout"
# a move the computer played in the seat of a person who had left the game (a game of three
# or four that went on without them): not that person's decision either
PLAYED_ON = "played_on"

# A decision losing less than THRESHOLDS[0] points is "best" (within the evaluator's noise of
# the best option); below THRESHOLDS[1] "good", below [2] an inaccuracy, below [3] a mistake,
# otherwise a blunder (docs/analysis.md: how they were chosen).
THRESHOLDS = (0.5, 2.0, 5.0, 10.0)
# Per-decision accuracy: 100 * (1 - loss / ACCURACY_SCALE), at least 0 (docs/analysis.md):
# linear, so a seat's accuracy orders players as their average loss does.
ACCURACY_SCALE = 20.0


def judge(loss: float) -> str:
    """The judgement of a decision that lost ``loss`` points against the best option."""
    for name, limit in zip(JUDGEMENTS, THRESHOLDS, strict=False):
        if loss < limit:
            return name
    return JUDGEMENTS[-1]


def decision_accuracy(loss: float) -> float:
    """Accuracy of one judged decision, in percent (100 for no loss)."""
    return 100.0 * max(0.0, 1.0 - max(loss, 0.0) / ACCURACY_SCALE)


@dataclass(frozen=True)
class Option:
    """One legal option at a decision, valued by the Expert from the seat's view."""

    action: str
    value: float  # expected points of hand value for the deciding seat; higher is better
    spread: float  # standard error of ``value`` (points)

    def to_json(self) -> list[Any]:
        return [self.action, self.value, self.spread]

    @classmethod
    def from_json(cls, data: Sequence[Any]) -> Option:
        action, value, spread = data
        return cls(str(action), float(value), float(spread))


@dataclass(frozen=True)
class Decision:
    index: int  # index of the move in record.moves
    seat: int
    hand: int  # hand number, from 1
    kind: str  # "upcard" | "draw" | "discard" | "knock" | "meld" | "layoff" | "other"
    played: str
    best: str
    options: tuple[Option, ...]  # best first
    loss: float  # value(best) - value(played), >= 0
    judgement: str  # one of JUDGEMENTS or "forced"

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "seat": self.seat,
            "hand": self.hand,
            "kind": self.kind,
            "played": self.played,
            "best": self.best,
            "options": [o.to_json() for o in self.options],
            "loss": self.loss,
            "judgement": self.judgement,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Decision:
        return cls(
            index=int(data["index"]),
            seat=int(data["seat"]),
            hand=int(data["hand"]),
            kind=str(data["kind"]),
            played=str(data["played"]),
            best=str(data["best"]),
            options=tuple(Option.from_json(o) for o in data["options"]),
            loss=float(data["loss"]),
            judgement=str(data["judgement"]),
        )


@dataclass(frozen=True)
class SeatSummary:
    seat: int
    player: str
    decisions: int  # judged (not forced) decisions
    accuracy: float  # percent, 0..100
    counts: dict[str, int]  # per judgement
    total_loss: float

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "player": self.player,
            "decisions": self.decisions,
            "accuracy": self.accuracy,
            "counts": dict(self.counts),
            "total_loss": self.total_loss,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SeatSummary:
        return cls(
            seat=int(data["seat"]),
            player=str(data["player"]),
            decisions=int(data["decisions"]),
            accuracy=float(data["accuracy"]),
            counts={str(k): int(v) for k, v in dict(data["counts"]).items()},
            total_loss=float(data["total_loss"]),
        )


@dataclass(frozen=True)
class GameAnalysis:
    version: int
    mode: str
    decisions: tuple[Decision, ...]
    summaries: tuple[SeatSummary, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "mode": self.mode,
            "decisions": [d.to_json() for d in self.decisions],
            "summaries": [s.to_json() for s in self.summaries],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GameAnalysis:
        return cls(
            version=int(data["version"]),
            mode=str(data["mode"]),
            decisions=tuple(Decision.from_json(d) for d in data["decisions"]),
            summaries=tuple(SeatSummary.from_json(s) for s in data["summaries"]),
        )


def summarise(decisions: Sequence[Decision], players: Sequence[str]) -> tuple[SeatSummary, ...]:
    """One summary per seat: judged decisions (neither forced nor played by the site on a
    timeout or for a player who had left), accuracy (mean per-decision accuracy; 100 with
    none judged), counts per judgement and the total loss."""
    out = []
    for seat, player in enumerate(players):
        mine = [d for d in decisions
                if d.seat == seat and d.judgement not in (FORCED, TIMED_OUT, PLAYED_ON)]
        counts = {j: 0 for j in JUDGEMENTS}
        for d in mine:
            counts[d.judgement] += 1
        acc = (
            sum(decision_accuracy(d.loss) for d in mine) / len(mine) if mine else 100.0
        )
        out.append(
            SeatSummary(
                seat=seat,
                player=player,
                decisions=len(mine),
                accuracy=round(acc, 2),
                counts=counts,
                total_loss=round(sum(d.loss for d in mine), 3),
            )
        )
    return tuple(out)
