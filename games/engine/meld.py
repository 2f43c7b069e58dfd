"""One meld: the ``Meld`` type, the table of every legal meld and the run tables the search reads.

A set is 3-4 cards of one rank, a run 3+ consecutive cards of one suit (aces low). There are
few enough of them (329) to build each once and intern it: ``MELDS`` maps a card mask to its
``Meld``. The best arrangement of a hand (the search over these melds) is in meld_search.py.

>>> Meld.parse("7C,7D,7H").kind, str(MELDS[Meld.parse("AS 2S 3S").mask])
('set', 'AS,2S,3S')
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from .cards import (
    FULL_MASK,
    RANK_ALL,
    Card,
    cards_of,
    mask_of,
    rank_value,
)
from .errors import InvalidMeldError

__all__ = [
    "Meld",
    "MELDS",
    "RANK_VALUES",
    "RUN_BLOCKS",
    "RUN_DEADWOOD",
    "attach_mask",
    "meld_key",
    "sorted_meld_cards",
]

RANK_VALUES = [rank_value(r) for r in range(1, 14)]  # deadwood value of each rank, A=1 .. K=10


def _build_tables() -> tuple[list[int], list[tuple[tuple[int, int], ...]]]:
    dw = [0] * 8192
    blocks: list[tuple[tuple[int, int], ...]] = [()] * 8192
    for m in range(8192):
        total = 0
        blk = []
        i = 0
        while i < 13:
            if m >> i & 1:
                j = i
                while j + 1 < 13 and m >> (j + 1) & 1:
                    j += 1
                if j - i >= 2:
                    blk.append((i, j))
                else:
                    total += sum(RANK_VALUES[i : j + 1])
                i = j + 1
            else:
                i += 1
        dw[m] = total
        blocks[m] = tuple(blk)
    return dw, blocks


# RUN_DEADWOOD[lane]: run-only deadwood of one suit's 13-bit lane; RUN_BLOCKS[lane]: its
# maximal blocks of >= 3 consecutive ranks as (low, high) bit positions.
RUN_DEADWOOD, RUN_BLOCKS = _build_tables()


class Meld:
    """A set (3-4 cards of a rank) or a run (3+ consecutive cards of a suit). Interned.

    >>> m = Meld.parse("5H,6H,7H")
    >>> m.kind, [str(c) for c in m.cards], str(m)
    ('run', ['5H', '6H', '7H'], '5H,6H,7H')
    """

    __slots__ = ("kind", "cards", "mask", "text")

    kind: str
    cards: tuple[Card, ...]
    mask: int
    text: str

    def __new__(cls, cards: Iterable[str | Card] | int) -> Meld:
        return cls.from_mask(mask_of(cards))

    @classmethod
    def parse(cls, text: str) -> Meld:
        parts = [p for p in text.replace(" ", ",").split(",") if p]
        return cls(parts)

    @classmethod
    def from_mask(cls, mask: int) -> Meld:
        meld = MELDS.get(mask)
        if meld is None:
            shown = ",".join(c.text for c in cards_of(mask & FULL_MASK))
            raise InvalidMeldError(
                f"{shown or 'no cards'} is not a meld: a set is 3-4 cards of one rank, a run "
                "3+ consecutive cards of one suit (aces low, no wrapping)"
            )
        return meld

    @classmethod
    def _make(cls, kind: str, mask: int) -> Meld:
        obj = object.__new__(cls)
        cards = tuple(cards_of(mask))
        if kind == "set":
            cards = tuple(sorted(cards, key=lambda c: c.suit_index))
        object.__setattr__(obj, "kind", kind)
        object.__setattr__(obj, "cards", cards)
        object.__setattr__(obj, "mask", mask)
        object.__setattr__(obj, "text", ",".join(c.text for c in cards))
        return obj

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Meld is immutable")

    def __len__(self) -> int:
        return len(self.cards)

    def __iter__(self) -> Iterator[Card]:
        return iter(self.cards)

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Meld({self.text!r})"

    def __hash__(self) -> int:
        return hash(self.mask)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Meld) and other.mask == self.mask

    def __reduce__(self) -> tuple[Callable[[int], Meld], tuple[int]]:
        return (Meld.from_mask, (self.mask,))

    def to_list(self) -> list[str]:
        return [c.text for c in self.cards]

    @property
    def value(self) -> int:
        return sum(c.value for c in self.cards)

    def attach_mask(self) -> int:
        """Bits of the cards that could be laid off onto this meld right now."""
        return attach_mask(self.kind, self.mask)


def attach_mask(kind: str, mask: int) -> int:
    if kind == "set":
        if mask.bit_count() != 3:
            return 0
        low = mask & -mask
        rank_bit = (low.bit_length() - 1) % 16
        return (RANK_ALL << rank_bit) & ~mask
    return ((mask << 1) | (mask >> 1)) & ~mask & FULL_MASK


def _build_melds() -> dict[int, Meld]:
    melds: dict[int, Meld] = {}
    for s in range(4):
        for lo in range(13):
            for hi in range(lo + 2, 13):
                m = 0
                for r in range(lo, hi + 1):
                    m |= 1 << (s * 16 + r)
                melds[m] = Meld._make("run", m)
    for r in range(13):
        full = RANK_ALL << r
        melds[full] = Meld._make("set", full)
        for s in range(4):
            m = full & ~(1 << (s * 16 + r))
            melds[m] = Meld._make("set", m)
    return melds


MELDS = _build_melds()  # every legal meld (set or run) by its card mask


def meld_key(m: Meld) -> tuple[int, int]:
    """Sort key of melds: runs first (by suit, rank), then sets (by rank)."""
    low = m.mask & -m.mask
    pos = low.bit_length() - 1
    if m.kind == "run":
        return (0, pos)
    return (1, pos % 16)


def sorted_meld_cards(kind: str, mm: int) -> list[Card]:
    """The cards of a meld in display order: a run by rank, a set by suit."""
    cards = cards_of(mm)
    if kind == "set":
        cards.sort(key=lambda c: c.suit_index)
    return cards
