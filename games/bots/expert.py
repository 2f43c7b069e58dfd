"""Expert: Hard plus determinized sampling search within a time budget.

At a discard decision (the one that matters: what to throw, whether to knock) the Expert
keeps Hard's best few candidates, then repeatedly

1. samples the unseen cards consistently with everything it knows (the opponent keeps the
   cards it was seen taking; the rest of its hand is dealt from the unseen cards and thinned
   the way a player keeps their best ten; the remaining cards form the stock, in random order);
2. plays every candidate out to the end of the hand with a fast policy for both players, on
   the same sample (common random numbers), scoring the hand exactly as the engine would
   (knock, gin, undercut with the defender's best lay-offs, drawn hands, the mode's multiplier);

and picks the candidate with the best average. Draws and forced moves use Hard's judgement, so
the search time goes where it matters. ``time_budget`` (seconds, default 0.08) caps one decision.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from typing import Any

from games.engine.actions import Action
from games.engine.melds import best_layoffs, best_melds

from .cardmath import BIT_VALUE, bits_of, dw
from .gin import GinParams, rank_discards, sample_opponent
from .knowledge import Knowledge
from .levels import HardBot

__all__ = ["ExpertBot", "playout"]


def _knock_points(knocker10: int, defender: int, gin: bool, big: bool, rules: tuple) -> int:
    """Points for the knocker (negative: the defender's undercut) of one showdown."""
    _limit, mult, gin_bonus, big_bonus, undercut = rules
    if gin:
        return ((big_bonus if big else gin_bonus) + dw(defender)) * mult
    mine = best_melds(knocker10)
    kdw = mine.deadwood
    od = best_layoffs(defender, mine.melds).deadwood
    if od > kdw:
        return (od - kdw) * mult
    return -(undercut + kdw - od) * mult


def playout(
    hands: list[int],
    stock: list[int],
    pile: list[int],
    turn: int,
    rules: tuple,
    drawn_at: int = 2,
    knock_easy: int = 20,
) -> int:
    """Play a gin hand to its end with a fast policy; return seat 0's net points.

    ``stock`` pops from the end; ``pile`` holds the discard pile (top last). The policy takes
    a discard that melds, throws the highest min-deadwood card, goes gin when it can and knocks
    when legal if its deadwood is low or the stock is still large.
    """
    limit = rules[0]
    hands = list(hands)
    pile = list(pile)
    stock = list(stock)
    while True:
        h = hands[turn]
        forbid = 0
        top = pile[-1] if pile else 0
        if top and dw(h | top) < dw(h) + BIT_VALUE[top]:
            pile.pop()
            h |= top
            forbid = top
        elif stock:
            h |= stock.pop()
        else:
            return 0
        if dw(h) == 0:
            pts = _knock_points(h, hands[1 - turn], True, True, rules)
            return pts if turn == 0 else -pts
        best_b = 0
        best_key = None
        for b in bits_of(h & ~forbid):
            key = (dw(h ^ b), -BIT_VALUE[b])
            if best_key is None or key < best_key:
                best_key = key
                best_b = b
        d = best_key[0]
        h ^= best_b
        if d == 0 or (limit and d <= limit and (d <= 4 or len(stock) >= knock_easy)):
            pts = _knock_points(h, hands[1 - turn], d == 0, False, rules)
            return pts if turn == 0 else -pts
        hands[turn] = h
        pile.append(best_b)
        if len(stock) <= drawn_at:
            return 0
        turn = 1 - turn


class ExpertBot(HardBot):
    """Hard + sampling search on discard and knock decisions (``time_budget`` seconds max)."""

    name = "expert"

    def __init__(
        self,
        rng: random.Random | None = None,
        params: GinParams | None = None,
        time_budget: float = 0.08,
        max_samples: int = 24,
        min_samples: int = 12,
        candidates: int = 3,
        margin: float = 8.0,
        knock_samples: int = 48,
        min_gain: float = 1.0,
        confidence: float = 2.0,
        **options: Any,
    ) -> None:
        super().__init__(rng, params=params, **options)
        self.time_budget = float(time_budget)
        self.max_samples = max_samples
        self.min_samples = min_samples
        self.candidates = candidates
        self.margin = margin
        self.knock_samples = knock_samples
        self.min_gain = min_gain
        self.confidence = confidence

    def decide_discard(self, view: dict[str, Any], know: Knowledge, legal: Sequence[Action]):
        hand11 = know.hand
        forbid = know.taken
        if know.big_gin and dw(hand11) == 0:
            return "big_gin", 0
        params = self.params
        ranked = rank_discards(know, hand11, forbid, params)
        for _s, d, b in ranked:
            if d == 0:
                return "gin", b
        if know.knock_limit:
            kbest = min(d for _, d, _ in ranked)
            if kbest <= know.knock_limit:
                kb = min((s, b) for s, d, b in ranked if d == kbest)[1]
                if self.gin.knock_decision(know, hand11 ^ kb, kbest, samples=self.knock_samples):
                    return "knock", kb
        top_score = ranked[0][0]
        cands = [b for s, _d, b in ranked[: self.candidates] if s - top_score <= self.margin]
        if len(cands) == 1 or know.num_players != 2:
            return "discard", ranked[0][2]
        return "discard", self.search(know, hand11, cands)

    def search(self, know: Knowledge, hand11: int, cands: list[int]) -> int:
        """The candidate discard with the best average playout, if clearly better than Hard's."""
        t_end = time.perf_counter() + self.time_budget
        rules = (know.knock_limit, know.multiplier, 25, 31, 25)
        k = len(cands)
        totals = [0.0] * k
        diffs = [0.0] * k  # sum of (candidate - Hard's choice), per sample
        diffs_sq = [0.0] * k
        n = 0
        rng = self.rng
        while n < self.max_samples:
            if n >= self.min_samples and time.perf_counter() > t_end:
                break
            opp, stock_mask = sample_opponent(know, rng)
            stock = list(bits_of(stock_mask))
            rng.shuffle(stock)
            vals = [playout([hand11 ^ b, opp], stock, know.pile + [b], 1, rules) for b in cands]
            for i, v in enumerate(vals):
                totals[i] += v
                dd = v - vals[0]
                diffs[i] += dd
                diffs_sq[i] += dd * dd
            n += 1
        best = 0
        best_mean = 0.0
        for i in range(1, k):
            mean = diffs[i] / n
            var = max(diffs_sq[i] / n - mean * mean, 0.0)
            sure = mean > self.confidence * (var / n) ** 0.5
            if sure and mean > self.min_gain and mean > best_mean:
                best = i
                best_mean = mean
        return cands[best]
