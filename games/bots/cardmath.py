"""Bit-mask card arithmetic shared by the bots (the engine's layout: 16 bits per suit lane)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from games.engine.cards import BY_BIT, FULL_MASK, LANE_MASK, RANK_ALL, Card, full_deck
from games.engine.meld_search import deadwood_of_mask

__all__ = [
    "BIT_VALUE",
    "FULL_MASK",
    "bits_of",
    "card_bit",
    "card_text",
    "DW_CACHE",
    "TRIPLES",
    "mask_from",
    "dw",
    "related",
    "melds_with",
    "triples_with",
]

BIT_VALUE: dict[int, int] = {c.bit: c.value for c in full_deck()}
_TEXT_BIT: dict[str, int] = {c.text: c.bit for c in full_deck()}

# dw's memo (the playouts read it inline)
DW_CACHE: dict[int, int] = {}


def card_text(bit: int) -> str:
    """The text of the card with this bit (``"QS"``)."""
    return BY_BIT[bit].text


def dw(mask: int) -> int:
    """Minimum deadwood of a mask, memoised (bots ask the same hands many times)."""
    v = DW_CACHE.get(mask)
    if v is None:
        if len(DW_CACHE) > 400_000:
            DW_CACHE.clear()
        v = deadwood_of_mask(mask)
        DW_CACHE[mask] = v
    return v


def card_bit(c: str | Card) -> int:
    if isinstance(c, Card):
        return c.bit
    b = _TEXT_BIT.get(c)
    if b is None:
        b = Card.parse(c).bit
    return b


def mask_from(cards: Iterable[str | Card]) -> int:
    m = 0
    for c in cards:
        m |= card_bit(c)
    return m


def bits_of(mask: int) -> Iterator[int]:
    while mask:
        low = mask & -mask
        yield low
        mask ^= low


def _rank_fold(mask: int) -> int:
    return (mask | (mask >> 16) | (mask >> 32) | (mask >> 48)) & LANE_MASK


def related(mask: int, reach: int = 2) -> int:
    """Cards that could meld with some card of ``mask``: same rank, or same suit within reach."""
    out = _rank_fold(mask) * RANK_ALL
    for k in range(1, reach + 1):
        out |= (mask << k) | (mask >> k)
    return out & FULL_MASK & ~mask


# For every card bit: the 3-card melds it belongs to, as the masks of the two other cards.
def _build_triples() -> dict[int, tuple[int, ...]]:
    table: dict[int, tuple[int, ...]] = {}
    for c in full_deck():
        b = c.bit
        pairs = []
        same = (RANK_ALL << (c.rank - 1)) & ~b
        others = list(bits_of(same))
        for i in range(len(others)):
            for j in range(i + 1, len(others)):
                pairs.append(others[i] | others[j])
        r = c.rank
        for lo in (r - 2, r - 1, r):
            hi = lo + 2
            if lo < 1 or hi > 13:
                continue
            m = 0
            for rr in range(lo, hi + 1):
                if rr != r:
                    m |= 1 << (c.suit_index * 16 + rr - 1)
            pairs.append(m)
        table[b] = tuple(pairs)
    return table


TRIPLES = _build_triples()


def triples_with(bit: int) -> tuple[int, ...]:
    """Masks of the card pairs that make a 3-card meld with ``bit``."""
    return TRIPLES[bit]


def melds_with(bit: int, hand: int) -> bool:
    """Does ``bit`` complete a 3-card meld with two cards of ``hand``?"""
    for pair in TRIPLES[bit]:
        if pair & hand == pair:
            return True
    return False
