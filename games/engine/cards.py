"""Cards: a small, interned, immutable value type.

>>> c = Card.parse("TD")
>>> str(c), c.rank, c.suit, c.value
('TD', 10, 'D', 10)
>>> Card("TD") is c
True
>>> sorted([Card("KS"), Card("AC"), Card("2C")])
[Card('AC'), Card('2C'), Card('KS')]

Bit layout used by the fast solvers: each suit owns a 16-bit lane of a 64-bit int, bit
``lane*16 + rank-1``; bits 13-15 of every lane stay empty so shifts never leak across suits.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

from .errors import InvalidCardError

RANKS = "A23456789TJQK"
SUITS = "CDHS"
LANE = 16
LANE_MASK = 0x1FFF
# One bit per rank across all four suits.
RANK_ALL = 1 | (1 << 16) | (1 << 32) | (1 << 48)
FULL_MASK = LANE_MASK | (LANE_MASK << 16) | (LANE_MASK << 32) | (LANE_MASK << 48)
_RANK_ALIASES = {"10": "T", "1": "A"}


def rank_value(rank: int) -> int:
    """Deadwood value of a rank 1..13 (A=1, faces 10)."""
    return rank if rank < 10 else 10


class Card:
    """A playing card. ``Card("TD")`` and ``Card.parse("td")`` give the same interned object."""

    __slots__ = ("rank", "suit", "value", "index", "bit", "text", "suit_index")

    rank: int
    suit: str
    value: int
    index: int
    bit: int
    text: str
    suit_index: int

    def __new__(cls, text: str | Card) -> Card:
        if isinstance(text, Card):
            return text
        card = _BY_TEXT.get(text) if isinstance(text, str) else None
        if card is None:
            return Card.parse(text)
        return card

    @staticmethod
    def parse(text: str | Card) -> Card:
        """Parse rank-then-suit text (``"TD"``, ``"10d"``, ``"as"``); raise InvalidCardError."""
        if isinstance(text, Card):
            return text
        if not isinstance(text, str):
            raise InvalidCardError(f"card must be text like 'TD', got {type(text).__name__}")
        card = _BY_TEXT.get(text)
        if card is not None:
            return card
        t = text.strip().upper()
        if len(t) >= 2:
            rank_txt, suit_txt = t[:-1], t[-1]
            rank_txt = _RANK_ALIASES.get(rank_txt, rank_txt)
            card = _BY_TEXT.get(rank_txt + suit_txt)
            if card is not None:
                return card
        raise InvalidCardError(
            f"invalid card {text!r}: expected rank {'/'.join(RANKS)} then suit "
            f"{'/'.join(SUITS)}, e.g. 'TD' for the ten of diamonds"
        )

    @classmethod
    def _make(cls, rank: int, suit_index: int) -> Card:
        obj = object.__new__(cls)
        sa = object.__setattr__
        sa(obj, "rank", rank)
        sa(obj, "suit", SUITS[suit_index])
        sa(obj, "suit_index", suit_index)
        sa(obj, "value", rank_value(rank))
        sa(obj, "index", suit_index * 13 + rank - 1)
        sa(obj, "bit", 1 << (suit_index * LANE + rank - 1))
        sa(obj, "text", RANKS[rank - 1] + SUITS[suit_index])
        return obj

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Card is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("Card is immutable")

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Card({self.text!r})"

    def __hash__(self) -> int:
        return self.index

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Card) and other.index == self.index

    def __lt__(self, other: Card) -> bool:
        return self.index < other.index

    def __le__(self, other: Card) -> bool:
        return self.index <= other.index

    def __gt__(self, other: Card) -> bool:
        return self.index > other.index

    def __ge__(self, other: Card) -> bool:
        return self.index >= other.index

    def __reduce__(self) -> tuple[type[Card], tuple[str]]:  # keep interning through pickle
        return (Card, (self.text,))

    def __copy__(self) -> Card:
        return self

    def __deepcopy__(self, memo: dict[int, object]) -> Card:
        return self


_ALL: tuple[Card, ...] = tuple(Card._make(r, s) for s in range(4) for r in range(1, 14))
_BY_TEXT: dict[str, Card] = {c.text: c for c in _ALL}
BY_BIT: dict[int, Card] = {c.bit: c for c in _ALL}
# text or Card -> bit (both kinds of key in one dict: the hot path of mask_of)
_BIT_OF: dict[object, int] = {c.text: c.bit for c in _ALL}
_BIT_OF.update({c: c.bit for c in _ALL})


def full_deck() -> list[Card]:
    """The 52 cards in canonical order (clubs A..K, diamonds, hearts, spades)."""
    return list(_ALL)


def shuffled_deck(rng: random.Random) -> list[Card]:
    """A new deck shuffled with the caller's seeded generator (never global randomness)."""
    deck = list(_ALL)
    rng.shuffle(deck)
    return deck


def mask_of(cards: Iterable[str | Card] | int) -> int:
    """Bit mask of distinct cards; raises InvalidCardError on bad text or duplicates."""
    if isinstance(cards, int):
        if cards & ~FULL_MASK or cards < 0:
            raise InvalidCardError("mask has bits outside the 52 card positions")
        return cards
    if not isinstance(cards, (list, tuple)):
        cards = list(cards)
    # each card's bit, or None for a bad text or object: the sum then raises TypeError
    bits: list[Any] = list(map(_BIT_OF.get, cards))
    try:
        m: int = sum(bits)
    except TypeError:
        m = -1
    # distinct powers of two add without carries, so the popcount shows duplicates
    if m < 0 or m.bit_count() != len(bits):
        return _mask_slow(cards)
    return m


def _mask_slow(cards: Iterable[str | Card]) -> int:
    m = 0
    for c in cards:
        card = Card.parse(c)
        b = card.bit
        if m & b:
            raise InvalidCardError(f"duplicate card {card.text}")
        m |= b
    return m


def cards_of(mask: int) -> list[Card]:
    """Cards of a mask in canonical order."""
    out = []
    while mask:
        low = mask & -mask
        out.append(BY_BIT[low])
        mask ^= low
    return out
