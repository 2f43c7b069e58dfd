"""Gin Rummy policies of every level, on ``Knowledge`` and bit masks (no engine state).

A policy answers two questions:

* ``take(know, top)``: take the upcard / top discard ``top`` (True) or draw from the stock?
* ``play(know, hand11, forbid)``: after drawing, return ``(kind, bit)`` with kind one of
  ``"discard"``, ``"knock"``, ``"gin"``, ``"big_gin"`` (bit 0 for big gin).

The bots in ``levels.py`` turn views into ``Knowledge`` and these answers into actions; the
Expert's playouts call the same policies directly, which keeps simulation fast.
"""

from __future__ import annotations

import abc
import random

from .cardmath import BIT_VALUE, bits_of, dw, triples_with
from .gin import (
    GinParams,
    knock_pays,
    melds_into,
    min_deadwood_discards,
    rank_discards,
    sample_opponent,
)
from .knowledge import Knowledge

__all__ = [
    "GinPolicy",
    "BaselinePolicy",
    "GinWaiterPolicy",
    "EasyPolicy",
    "MediumPolicy",
    "HardPolicy",
]


class GinPolicy(abc.ABC):
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    @abc.abstractmethod
    def take(self, know: Knowledge, top: int) -> bool:
        """Whether to take the offered card (upcard or top discard)."""

    @abc.abstractmethod
    def play(self, know: Knowledge, hand11: int, forbid: int) -> tuple[str, int]:
        """The move and card for an 11-card hand (``forbid``: the card just taken)."""


def _finish(kind_dw: int, limit: int, bit: int) -> tuple[str, int]:
    if kind_dw == 0:
        return "gin", bit
    if limit and kind_dw <= limit:
        return "knock", bit
    return "discard", bit


class BaselinePolicy(GinPolicy):
    """The EAAI 2021 challenge's simple player (see docs/bots.md)."""

    def take(self, know: Knowledge, top: int) -> bool:
        return melds_into(know.hand, top)

    def knock_ok(self, know: Knowledge, d: int) -> bool:
        return d == 0 or (know.knock_limit > 0 and d <= know.knock_limit)

    def play(self, know: Knowledge, hand11: int, forbid: int) -> tuple[str, int]:
        if know.big_gin and dw(hand11) == 0:
            return "big_gin", 0
        best, cands = min_deadwood_discards(hand11, forbid)
        b = cands[self.rng.randrange(len(cands))]
        if self.knock_ok(know, best):
            return ("gin" if best == 0 else "knock"), b
        return "discard", b


class GinWaiterPolicy(BaselinePolicy):
    """Baseline that, after its first three turns, knocks only with gin."""

    def knock_ok(self, know: Knowledge, d: int) -> bool:
        if d == 0:
            return True
        return know.my_draws <= 3 and know.knock_limit > 0 and d <= know.knock_limit


def usefulness(b: int, hand: int, unseen: int) -> float:
    """How likely card ``b`` is to end up in a meld of ``hand`` (partners still to come)."""
    u = 0.0
    for pair in triples_with(b):
        inhand = pair & hand
        if inhand == pair:
            u += 3.0
        elif inhand and (pair & ~hand) & unseen:
            u += 1.0
        elif pair & unseen == pair:
            u += 0.1
    return u


def _tie_break(know: Knowledge, h11: int, cands: list[int]) -> int:
    """Among equal-deadwood discards throw the card with fewest partners, then the highest."""
    if len(cands) == 1:
        return cands[0]
    unseen = know.unseen()
    return min(cands, key=lambda b: (usefulness(b, h11, unseen), -BIT_VALUE[b], b))


class MediumPolicy(GinPolicy):
    """Minimal-deadwood discards, takes a discard that makes a meld, knocks when legal."""

    def take(self, know: Knowledge, top: int) -> bool:
        return melds_into(know.hand, top)

    def play(self, know: Knowledge, hand11: int, forbid: int) -> tuple[str, int]:
        if know.big_gin and dw(hand11) == 0:
            return "big_gin", 0
        best, cands = min_deadwood_discards(hand11, forbid)
        b = _tie_break(know, hand11, cands)
        return _finish(best, know.knock_limit, b)


class EasyPolicy(MediumPolicy):
    """Medium with a beginner's mistakes: misses melds, throws helpful cards, knocks eagerly."""

    miss_take = 0.2
    bad_discard = 0.12
    blunder = 0.02

    def take(self, know: Knowledge, top: int) -> bool:
        if melds_into(know.hand, top):
            return self.rng.random() >= self.miss_take
        return False

    def play(self, know: Knowledge, hand11: int, forbid: int) -> tuple[str, int]:
        best, cands = min_deadwood_discards(hand11, forbid)
        if best == 0:
            if know.big_gin and dw(hand11) == 0 and self.rng.random() < 0.7:
                return "big_gin", 0
            return "gin", cands[0]
        if know.knock_limit and best <= know.knock_limit:
            return "knock", cands[self.rng.randrange(len(cands))]
        r = self.rng.random()
        legal = [b for b in bits_of(hand11 & ~forbid)]
        if r < self.blunder:
            b = legal[self.rng.randrange(len(legal))]
        elif r < self.blunder + self.bad_discard:
            # a "loose" card: one that is not melded; may break a pair that was helping
            melded = 0
            from games.engine.meld_search import best_melds

            melded = best_melds(hand11).melded_mask
            loose = [b for b in legal if not b & melded] or legal
            b = loose[self.rng.randrange(len(loose))]
        else:
            b = cands[self.rng.randrange(len(cands))]
        return "discard", b


class HardPolicy(GinPolicy):
    """Card memory, opponent model, safe discards and knock/gin/undercut judgement."""

    def __init__(self, rng: random.Random, params: GinParams | None = None) -> None:
        super().__init__(rng)
        self.params = params or GinParams()

    def take(self, know: Knowledge, top: int) -> bool:
        hand = know.hand
        if melds_into(hand, top):
            return True
        # A low card that lets us knock right away (and is not wanted later) is worth taking.
        if know.knock_limit:
            h11 = hand | top
            best, _ = min_deadwood_discards(h11, top)
            if best <= know.knock_limit and best < dw(hand) - 4 and know.my_draws <= 6:
                return True
        return False

    def knock_decision(
        self, know: Knowledge, h10: int, kdw: int, samples: int | None = None
    ) -> bool:
        p = self.params
        if know.my_draws <= p.early_knock_turns and kdw <= know.knock_limit:
            return True
        if know.stock <= 4:
            return True
        n = samples or p.knock_samples
        opp_hands = [sample_opponent(know, self.rng)[0] for _ in range(n)]
        return knock_pays(know, h10, opp_hands, p.knock_margin)

    def play(self, know: Knowledge, hand11: int, forbid: int) -> tuple[str, int]:
        if know.big_gin and dw(hand11) == 0:
            return "big_gin", 0
        ranked = rank_discards(know, hand11, forbid, self.params)
        # Gin beats everything.
        for _score, d, b in ranked:
            if d == 0:
                return "gin", b
        if know.knock_limit:
            kbest = min(d for _, d, _ in ranked)
            if kbest <= know.knock_limit:
                # knock with the safest card among those leaving the knock deadwood
                kcands = [(s, b) for s, d, b in ranked if d == kbest]
                b = min(kcands)[1]
                if self.knock_decision(know, hand11 ^ b, kbest):
                    return "knock", b
        return "discard", ranked[0][2]
