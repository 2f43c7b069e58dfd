"""Typed results of a hand and of a game."""

from __future__ import annotations

from copy import deepcopy
from dataclasses import dataclass, field, fields, is_dataclass
from enum import Enum, StrEnum
from types import NoneType
from typing import Any

__all__ = ["HandOutcome", "HandResult", "ColumnResult", "GameResult"]


class HandOutcome(StrEnum):
    KNOCK = "knock"  # knocker won: defender's deadwood minus knocker's
    GIN = "gin"
    BIG_GIN = "big_gin"
    UNDERCUT = "undercut"  # defender won against a knock
    DRAWN = "drawn"  # gin: two cards left in stock, nobody scores
    OUT = "out"  # rummy: a player went out
    STALEMATE = "stalemate"  # rummy: nobody scores; a loss for everybody


def _tuplify(v: Any) -> Any:
    if isinstance(v, list):
        return tuple(_tuplify(x) for x in v)
    return v


def _listify_fields(obj: Any) -> dict[str, Any]:
    """A result dataclass as a JSON-safe dict: what ``dataclasses.asdict`` and ``_listify``
    gave, built in one pass (``asdict`` deep-copies every leaf, and results are written with
    every move and every seat's view: it was about a third of a move's service time)."""
    return {f.name: _listify(getattr(obj, f.name)) for f in fields(obj)}


def _listify(v: Any) -> Any:
    if isinstance(v, Enum):
        return v.value
    if isinstance(v, (str, int, NoneType)):
        return v
    if isinstance(v, (list, tuple)):
        return [_listify(x) for x in v]
    if isinstance(v, dict):
        return {k: _listify(x) for k, x in v.items()}
    if is_dataclass(v) and not isinstance(v, type):
        return _listify_fields(v)
    return deepcopy(v)  # as asdict copied any other value


@dataclass(frozen=True)
class HandResult:
    """How one hand ended and what it scored. Cards are given as text.

    ``points`` is what ``winner`` scored (after any multiplier); ``base_points`` before it.
    Gin hands fill the knocker/defender fields; rummy hands fill ``remaining`` (each seat's
    cards left) and ``going_rummy``.
    """

    hand_number: int
    dealer: int
    outcome: HandOutcome
    winner: int | None
    points: int
    base_points: int = 0
    multiplier: int = 1
    upcard: str | None = None
    knock_limit: int | None = None
    knocker: int | None = None
    knock_card: str | None = None
    knocker_melds: tuple[tuple[str, ...], ...] = ()
    knocker_deadwood_cards: tuple[str, ...] = ()
    knocker_deadwood: int = 0
    defender: int | None = None
    defender_melds: tuple[tuple[str, ...], ...] = ()
    defender_deadwood_cards: tuple[str, ...] = ()
    defender_deadwood: int = 0
    layoffs: tuple[tuple[str, int], ...] = ()
    columns: tuple[int, ...] = ()
    going_rummy: bool = False
    remaining: tuple[tuple[str, ...], ...] = ()
    reason: str = ""

    def to_dict(self) -> dict[str, Any]:
        return _listify_fields(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> HandResult:
        kw = {f.name: _tuplify(d[f.name]) for f in fields(cls) if f.name in d}
        kw["outcome"] = HandOutcome(d["outcome"])
        return cls(**kw)


@dataclass(frozen=True)
class ColumnResult:
    """One game of the score sheet (Hollywood has three, the others one)."""

    column: int
    winner: int
    hand_points: tuple[int, ...]
    hands_won: tuple[int, ...]
    shutout: bool
    scored_points: tuple[int, ...]  # hand points after shutout doubling
    game_bonus: tuple[int, ...]
    line_bonus: tuple[int, ...]
    totals: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        return _listify_fields(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ColumnResult:
        return cls(**{f.name: _tuplify(d[f.name]) for f in fields(cls)})


@dataclass(frozen=True)
class GameResult:
    """The end of a game: grand totals per seat, winner (None on an exact tie), margin."""

    mode: str
    winner: int | None
    totals: tuple[int, ...]
    margin: int
    hands_played: int
    columns: tuple[ColumnResult, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        d = _listify_fields(self)
        d["columns"] = [c.to_dict() for c in self.columns]
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> GameResult:
        return cls(
            mode=d["mode"],
            winner=d["winner"],
            totals=tuple(d["totals"]),
            margin=d["margin"],
            hands_played=d["hands_played"],
            columns=tuple(ColumnResult.from_dict(c) for c in d.get("columns", [])),
        )
