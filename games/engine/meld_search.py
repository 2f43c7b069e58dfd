"""Exact meld solving: the best arrangement and the best discards.

The melds themselves (the ``Meld`` type, the table of every meld) are in meld.py, lay-offs
in layoffs.py.

The search is exact (never a heuristic) and cheap:

* Runs live inside one suit, and once the sets are chosen the leftover cards of a suit are
  best covered by taking every maximal block of >= 3 consecutive ranks as a run. So a
  precomputed table ``RUN_DEADWOOD[lane]`` (8192 entries) gives the run-only deadwood of a
  suit in one lookup.
* Only ranks holding 3-4 cards can form sets. A card that is in no 3-long consecutive block
  of its suit can never be in a run ("locked"), which prunes the set options: a rank whose
  cards are all locked always forms its set, a 4-set never leaves out a locked card, etc.
* Random hands have no such rank at all, so their deadwood is four table lookups.
  Otherwise the few remaining set options are enumerated; hands with very many candidate
  ranks (possible only far above 11 cards) use a rank-by-rank dynamic programme instead.

>>> r = best_melds("AS 2S 3S 7D 7H 7C KD KH 9S 4C".split())
>>> r.to_dict()["melds"], r.deadwood
([['AS', '2S', '3S'], ['7C', '7D', '7H']], 33)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import product
from typing import Any

from .cards import (
    BY_BIT,
    LANE_MASK,
    RANK_ALL,
    Card,
    cards_of,
    mask_of,
)
from .errors import InvalidMeldError
from .meld import MELDS, RANK_VALUES, RUN_BLOCKS, RUN_DEADWOOD, Meld, meld_key

__all__ = [
    "MeldResult",
    "best_melds",
    "best_discards",
    "deadwood",
    "deadwood_of_mask",
    "hand_value",
]

_RD = RUN_DEADWOOD
_COMBO_LIMIT = 4096


def _lanes_deadwood(r: int) -> int:
    return (
        _RD[r & LANE_MASK] + _RD[(r >> 16) & LANE_MASK] + _RD[(r >> 32) & LANE_MASK] + _RD[r >> 48]
    )


def _solve(m: int) -> tuple[int, tuple[int, ...], int]:
    """Return (deadwood, set masks, rest) for the best arrangement of mask ``m``.

    ``rest`` is ``m`` without the set cards: its blocks of >= 3 are the runs, the others deadwood.
    """
    a = m & LANE_MASK
    b = (m >> 16) & LANE_MASK
    c = (m >> 32) & LANE_MASK
    d = m >> 48
    t = (a & b & (c | d)) | (c & d & (a | b))
    if not t:
        return _RD[a] + _RD[b] + _RD[c] + _RD[d], (), m
    x = m & (m >> 1) & (m >> 2)
    runnable = x | (x << 1) | (x << 2)
    forced: list[int] = []
    forced_mask = 0
    lists: list[list[int]] = []
    combos = 1
    while t:
        low = t & -t
        t ^= low
        k = m & (low * RANK_ALL)
        free = k & runnable
        if not free:
            forced.append(k)
            forced_mask |= k
            continue
        opts = [k]
        if k.bit_count() == 4:
            f = free
            while f:
                fl = f & -f
                f ^= fl
                opts.append(k ^ fl)
            if free.bit_count() >= 2:
                opts.append(0)
        else:
            opts.append(0)
        lists.append(opts)
        combos *= len(opts)
    base = m ^ forced_mask
    if not lists:
        return _lanes_deadwood(base), tuple(forced), base
    if combos > _COMBO_LIMIT:
        return _solve_dp(m)
    if len(lists) == 1:
        best = -1
        best_k = 0
        for k in lists[0]:
            r = base ^ k
            dw = (
                _RD[r & LANE_MASK]
                + _RD[(r >> 16) & LANE_MASK]
                + _RD[(r >> 32) & LANE_MASK]
                + _RD[r >> 48]
            )
            if best < 0 or dw < best:
                best = dw
                best_k = k
        if best_k:
            forced.append(best_k)
        return best, tuple(forced), base ^ best_k
    best = -1
    best_combo: tuple[int, ...] = ()
    for combo in product(*lists):
        r = base ^ sum(combo)
        dw = (
            _RD[r & LANE_MASK]
            + _RD[(r >> 16) & LANE_MASK]
            + _RD[(r >> 32) & LANE_MASK]
            + _RD[r >> 48]
        )
        if best < 0 or dw < best:
            best = dw
            best_combo = combo
    chosen = [k for k in best_combo if k]
    return best, tuple(forced + chosen), base ^ sum(chosen)


def _solve_dp(m: int) -> tuple[int, tuple[int, ...], int]:
    """Rank-by-rank DP for huge hands. State: per suit, current consecutive length (cap 3)."""
    # states: dict state -> cost; state encodes 4 suit lengths, 2 bits each
    states: dict[int, int] = {0: 0}
    back: list[dict[int, tuple[int, int]]] = []
    for r in range(13):
        k = m & (RANK_ALL << r)
        bits = []
        kk = k
        while kk:
            low = kk & -kk
            kk ^= low
            bits.append(low)
        opts = [0]
        if len(bits) >= 3:
            opts.append(k)
            if len(bits) == 4:
                opts.extend(k ^ b for b in bits)
        new: dict[int, int] = {}
        bp: dict[int, tuple[int, int]] = {}
        for st, cost in states.items():
            for opt in opts:
                rem = k ^ opt
                ns = 0
                add = 0
                for s in range(4):
                    ln = (st >> (2 * s)) & 3
                    if rem >> (s * 16 + r) & 1:
                        ns |= min(ln + 1, 3) << (2 * s)
                    elif ln == 1:
                        add += RANK_VALUES[r - 1]
                    elif ln == 2:
                        add += RANK_VALUES[r - 1] + RANK_VALUES[r - 2]
                nc = cost + add
                old = new.get(ns)
                if old is None or nc < old:
                    new[ns] = nc
                    bp[ns] = (st, opt)
        states = new
        back.append(bp)
    best_state = -1
    best_cost = -1
    for st, cost in states.items():
        add = 0
        for s in range(4):
            ln = (st >> (2 * s)) & 3
            if ln == 1:
                add += RANK_VALUES[12]
            elif ln == 2:
                add += RANK_VALUES[12] + RANK_VALUES[11]
        if best_cost < 0 or cost + add < best_cost:
            best_cost = cost + add
            best_state = st
    sets = []
    st = best_state
    for r in range(12, -1, -1):
        st, opt = back[r][st]
        if opt:
            sets.append(opt)
    set_mask = sum(sets)
    rest = m ^ set_mask
    return _lanes_deadwood(rest), tuple(reversed(sets)), rest


def deadwood_of_mask(m: int) -> int:
    """Minimum deadwood count of a card mask (the hot path for bots)."""
    a = m & LANE_MASK
    b = (m >> 16) & LANE_MASK
    c = (m >> 32) & LANE_MASK
    d = m >> 48
    if (a & b & (c | d)) | (c & d & (a | b)):
        return _solve(m)[0]
    return _RD[a] + _RD[b] + _RD[c] + _RD[d]


def deadwood(cards: Iterable[str | Card] | int) -> int:
    """Minimum deadwood count of some cards."""
    return deadwood_of_mask(mask_of(cards))


def hand_value(cards: Iterable[str | Card] | int) -> int:
    """Sum of card values (no melding)."""
    return sum(c.value for c in cards_of(mask_of(cards)))


def _runs_and_dead(rest: int) -> tuple[list[Meld], int]:
    runs: list[Meld] = []
    dead = rest
    for s in range(4):
        lane = (rest >> (16 * s)) & LANE_MASK
        for lo, hi in RUN_BLOCKS[lane]:
            mm = (((1 << (hi - lo + 1)) - 1) << lo) << (16 * s)
            runs.append(MELDS[mm])
            dead ^= mm
    return runs, dead


class MeldResult:
    """Best arrangement of some cards: ``melds``, ``deadwood_cards``, ``deadwood``.

    The meld and card tuples are built lazily on first access, so a caller that only needs
    ``deadwood`` pays for nothing else.
    """

    __slots__ = ("deadwood", "mask", "_sets", "_rest", "_melds", "_dead")

    def __init__(self, mask: int, deadwood: int, sets: tuple[int, ...], rest: int) -> None:
        self.mask = mask
        self.deadwood = deadwood
        self._sets = sets
        self._rest = rest
        self._melds: tuple[Meld, ...] | None = None
        self._dead: int | None = None

    @classmethod
    def from_melds(cls, cards: Iterable[str | Card] | int, melds: Sequence[Meld]) -> MeldResult:
        """An explicit (not necessarily best) arrangement; validates disjointness and membership."""
        m = mask_of(cards)
        used = 0
        for meld in melds:
            if meld.mask & used:
                raise InvalidMeldError(f"card used twice in arrangement ({meld})")
            if meld.mask & ~m:
                raise InvalidMeldError(f"meld {meld} uses cards not in the hand")
            used |= meld.mask
        dead = m ^ used
        obj = cls(m, sum(c.value for c in cards_of(dead)), (), 0)
        obj._melds = tuple(sorted(melds, key=meld_key))
        obj._dead = dead
        return obj

    def _build(self) -> tuple[tuple[Meld, ...], int]:
        runs, dead = _runs_and_dead(self._rest)
        melds = [MELDS[s] for s in self._sets] + runs
        melds.sort(key=meld_key)
        self._melds = built = tuple(melds)
        self._dead = dead
        return built, dead

    @property
    def melds(self) -> tuple[Meld, ...]:
        melds = self._melds
        return melds if melds is not None else self._build()[0]

    @property
    def deadwood_mask(self) -> int:
        dead = self._dead
        return dead if dead is not None else self._build()[1]

    @property
    def deadwood_cards(self) -> tuple[Card, ...]:
        return tuple(cards_of(self.deadwood_mask))

    @property
    def melded_mask(self) -> int:
        return self.mask ^ self.deadwood_mask

    def to_dict(self) -> dict[str, Any]:
        return {
            "melds": [m.to_list() for m in self.melds],
            "deadwood_cards": [c.text for c in self.deadwood_cards],
            "deadwood": self.deadwood,
        }

    def __repr__(self) -> str:
        melds = " ".join("[" + m.text + "]" for m in self.melds)
        dead = ",".join(c.text for c in self.deadwood_cards)
        return f"MeldResult({melds} deadwood={dead or '-'} ({self.deadwood}))"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, MeldResult)
            and self.mask == other.mask
            and self.melds == other.melds
            and self.deadwood_mask == other.deadwood_mask
        )

    def __hash__(self) -> int:
        return hash((self.mask, self.melds))


def best_melds(cards: Iterable[str | Card] | int) -> MeldResult:
    """The arrangement with the lowest deadwood count (exact; deterministic tie-break).

    Accepts card texts, Cards or a card bit mask; any number of cards.
    """
    m = mask_of(cards)
    a = m & LANE_MASK
    b = (m >> 16) & LANE_MASK
    c = (m >> 32) & LANE_MASK
    d = m >> 48
    if (a & b & (c | d)) | (c & d & (a | b)):
        dw, sets, rest = _solve(m)
        return MeldResult(m, dw, sets, rest)
    return MeldResult(m, _RD[a] + _RD[b] + _RD[c] + _RD[d], (), m)


def best_discards(cards: Iterable[str | Card] | int) -> list[tuple[Card, MeldResult]]:
    """The discards that leave the lowest deadwood, each with the best arrangement left.

    >>> [str(c) for c, _ in best_discards("AS 2S 3S 4S 7D 7H 7C KD KH KC QS".split())]
    ['QS']
    """
    m = mask_of(cards)
    if not m:
        return []
    scores = []
    best = -1
    x = m
    while x:
        bit = x & -x
        x ^= bit
        dw = deadwood_of_mask(m ^ bit)
        scores.append((bit, dw))
        if best < 0 or dw < best:
            best = dw
    return [(BY_BIT[bit], best_melds(m ^ bit)) for bit, dw in scores if dw == best]
