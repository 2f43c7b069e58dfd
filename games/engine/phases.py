"""The values a game state holds besides its cards: its ``Phase``, a fixed ``Deal`` and a gin
``Showdown`` in progress, each with its stored form (the state itself: state.py).

>>> Phase("layoff") is Phase.LAYOFF, Deal.make([["AS", "2S"], ["3S"]], "4S").to_dict()["hands"]
(True, [['AS', '2S'], ['3S']])
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from .cards import Card

__all__ = ["Phase", "Deal", "Showdown"]


class Phase(StrEnum):
    OFFER = "offer"  # gin: the upcard is offered (non-dealer first, then dealer)
    DRAW = "draw"  # draw from stock or discard pile
    DISCARD = "discard"  # gin: discard, knock, gin or big gin
    LAYOFF = "layoff"  # gin: the defender lays off after a knock
    PLAY = "play"  # rummy: meld, lay off, discard or go out
    OVER = "over"


@dataclass(frozen=True)
class Deal:
    """An explicit deal for tests and puzzles: each seat's cards, the upcard, the stock's top.

    ``stock`` lists the top of the stock first; cards not named anywhere follow below it in
    a seeded order.
    """

    hands: tuple[tuple[str, ...], ...]
    upcard: str
    stock: tuple[str, ...] = ()

    @classmethod
    def make(
        cls,
        hands: Sequence[Iterable[str | Card]],
        upcard: str | Card,
        stock: Iterable[str | Card] = (),
    ) -> Deal:
        return cls(
            tuple(tuple(str(Card.parse(c)) for c in h) for h in hands),
            str(Card.parse(upcard)),
            tuple(str(Card.parse(c)) for c in stock),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "hands": [list(h) for h in self.hands],
            "upcard": self.upcard,
            "stock": list(self.stock),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any] | Deal) -> Deal:
        if isinstance(d, Deal):
            return d
        return cls.make(d["hands"], d["upcard"], d.get("stock", ()))


@dataclass(slots=True)
class Showdown:
    """A gin hand's showdown in progress: the knocker's melds are on the table and the
    defender may lay off onto them. ``to_dict`` is its stored (and public) form."""

    knocker: int
    defender: int
    kind: str  # "knock", "gin" or "big_gin"
    knock_card: str | None  # the face-down discard (None for big gin)
    knocker_melds: list[list[str]]
    knocker_deadwood_cards: list[str]
    knocker_deadwood: int
    layoffs: list[list[Any]]  # [card, meld index] per card laid off, in order

    def copy(self) -> Showdown:
        return Showdown(
            self.knocker,
            self.defender,
            self.kind,
            self.knock_card,
            self.knocker_melds,
            self.knocker_deadwood_cards,
            self.knocker_deadwood,
            list(self.layoffs),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "knocker": self.knocker,
            "defender": self.defender,
            "kind": self.kind,
            "knock_card": self.knock_card,
            "knocker_melds": self.knocker_melds,
            "knocker_deadwood_cards": self.knocker_deadwood_cards,
            "knocker_deadwood": self.knocker_deadwood,
            "layoffs": [list(x) for x in self.layoffs],
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Showdown:
        return cls(
            d["knocker"],
            d["defender"],
            d["kind"],
            d["knock_card"],
            d["knocker_melds"],
            d["knocker_deadwood_cards"],
            d["knocker_deadwood"],
            [list(x) for x in d["layoffs"]],
        )


