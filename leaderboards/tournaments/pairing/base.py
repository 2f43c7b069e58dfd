"""What every format's pure algorithms share: errors, seeding, results and places."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass


class PairingError(ValueError):
    """A result that the bracket cannot take (unknown match, or a winner not in it)."""


def seed_order(ratings: Mapping[int, int]) -> list[int]:
    """Players by rating, highest first (ties: lower id first)."""
    return sorted(ratings, key=lambda p: (-ratings[p], p))


@dataclass(frozen=True)
class Result:
    """One finished pairing of a points event: ``winner`` None for a drawn match."""

    a: int
    b: int | None  # None: a bye (a point to ``a``)
    winner: int | None


@dataclass(frozen=True)
class Standing:
    player: int
    score: float
    tiebreak1: float  # Buchholz (Swiss, round robin) / performance (arena)
    tiebreak2: float  # Sonneborn-Berger (Swiss, round robin) / games played (arena)
    place: int


def shared_places(rows: Sequence[tuple[int, tuple[float, ...]]]) -> dict[int, int]:
    """Places from (player, key) rows sorted best first: equal keys share a place."""
    places: dict[int, int] = {}
    for i, (p, key) in enumerate(rows):
        places[p] = places[rows[i - 1][0]] if i and rows[i - 1][1] == key else i + 1
    return places

