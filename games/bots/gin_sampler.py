"""The Expert's opponent sampler for the gin modes: hands for the opponent and the stock.

``sample_consistent`` deals the opponent a hand consistent with what is known (it keeps the
cards it was seen taking, the rest is dealt from the unseen cards and thinned the way a player
keeps their best ten) and mostly rejects hands that contradict its moves; the remaining cards
form the stock. ``sample_tilted`` moves those samples towards the hands the real opponent
holds (``holding.py``). ``Dealer`` is the sampler of one decision; the playouts that use the
samples are in ``gin_search``.
"""

from __future__ import annotations

import math
import random

from games.engine.cards import LANE_MASK, RANK_ALL

from .cardmath import bits_of
from .gin import deal_size, mask_of_bits
from .gin_search import meld_feeds, pick_throw, random_throw, throw_ties
from .holding import HandModel
from .knowledge import Knowledge

__all__ = ["Dealer", "sample_consistent", "sample_tilted", "thin_fast"]

# ``Dealer`` keeps its thinning throws (``thin_fast``'s memo) when it can deal at most this
# many different hands.
MEMO_DEALS = 2000


def _in_melds(hand: int) -> int:
    """The cards of ``hand`` that make a 3-card meld with two others of it: a rank it holds
    three or four of, or three in a row of a suit."""
    a = hand & LANE_MASK
    b = (hand >> 16) & LANE_MASK
    c = (hand >> 32) & LANE_MASK
    d = hand >> 48
    x = hand & (hand >> 1) & (hand >> 2)
    sets = ((a & b & (c | d)) | (c & d & (a | b))) * RANK_ALL
    return (sets | x | (x << 1) | (x << 2)) & hand


def thin_fast(
    hand: int,
    keep: int,
    extra: int,
    rng: random.Random,
    memo: dict[int, tuple[int, tuple[int, ...]]] | None = None,
) -> int:
    """Throw ``extra`` cards of ``hand`` but none of ``keep`` greedily, each time the one
    leaving the least deadwood (ties: the highest, and among equals one at random), as
    ``gin.sample_opponent`` does (it takes the first of its shuffled deal): with the
    playouts' throw (``gin_search.random_throw``), which finds the deadwood of the hand less
    each card at once.

    ``memo`` (for one ``keep``) keeps each hand's ``throw_ties``, for decisions that deal
    the same hands again and again (``Dealer``). The cards thrown and the random draws are
    the same with or without it."""
    if memo is None:
        for _ in range(extra):
            hand ^= random_throw(hand, keep, rng)
        return hand
    for _ in range(extra):
        entry = memo.get(hand)
        if entry is None:
            entry = memo[hand] = throw_ties(hand, keep)
        best = entry[1]
        hand ^= best[0] if len(best) == 1 and not entry[0] else pick_throw(entry, rng)
    return hand


class Dealer:
    """The Expert's opponent sampler for one decision (what it needs of ``Knowledge`` read
    once): ``thinned`` deals the opponent's unknown cards, ``extra`` more than they hold
    (``gin.deal_size``), and thins them with ``thin_fast`` (it keeps the cards they took);
    ``consistent`` mostly rejects hands that contradict the opponent's moves
    (``violations``).

    It deals with ``rng.sample`` rather than shuffling every unseen card (the same
    distribution as ``gin.deal_opponent``, a fraction of its cost)."""

    def __init__(
        self, know: Knowledge, extra_cap: int = 6, tries: int = 6, keep: float = 0.15
    ) -> None:
        opp = know.opponent()
        self.unseen = know.unseen()
        self.pool = list(bits_of(self.unseen))
        self.known = opp.known
        need, self.extra = deal_size(know, len(self.pool), extra_cap)
        self.k = need + self.extra
        self.threw = opp.declined | opp.discarded
        self.tries = tries
        self.keep = keep
        # thin_fast's memo, when few hands can be dealt (late in a hand, few cards unseen):
        # then the same hands come again and again, and a 16-card hand's throw is the
        # costliest step of a sample. Otherwise they seldom repeat, and it would not pay.
        few = self.extra and math.comb(len(self.pool), self.k) <= MEMO_DEALS
        self.throws: dict[int, tuple[int, tuple[int, ...]]] | None = {} if few else None

    def thinned(self, rng: random.Random) -> int:
        """One sampled opponent hand, before rejection."""
        hand = self.known | mask_of_bits(rng.sample(self.pool, self.k))
        if not self.extra:
            return hand
        return thin_fast(hand, self.known, self.extra, rng, self.throws)

    def violations(self, hand: int) -> int:
        """How many public moves of the opponent ``hand`` contradicts: cards they threw or
        declined that would meld with it, cards they took that it does not meld."""
        threw = self.threw & ~hand & meld_feeds(hand)
        took = self.known & hand & ~_in_melds(hand)
        return threw.bit_count() + took.bit_count()

    def consistent(self, rng: random.Random) -> tuple[int, int]:
        """(hand, stock mask): a sample kept with probability ``keep ** violations``; after
        ``tries`` the least-violating one."""
        best = 0
        best_v = 1 << 30
        keep = self.keep
        for _ in range(self.tries):
            hand = self.thinned(rng)
            v = self.violations(hand)
            if v == 0 or rng.random() < keep**v:
                return hand, self.unseen & ~hand
            if v < best_v:
                best, best_v = hand, v
        return best, self.unseen & ~best


def sample_consistent(
    know: Knowledge, rng: random.Random, tries: int = 6, keep: float = 0.15
) -> tuple[int, int]:
    """An opponent hand and the stock: ``Dealer(know).consistent`` (a sample kept with
    probability ``keep ** violations``, see ``Dealer.violations``; after ``tries`` the
    least-violating one)."""
    return Dealer(know, tries=tries, keep=keep).consistent(rng)


def sample_tilted(
    know: Knowledge,
    rng: random.Random,
    model: HandModel,
    draws: int = 4,
    dealer: Dealer | None = None,
) -> tuple[int, int]:
    """``sample_consistent`` moved towards the real opponent's hands: of ``draws`` samples,
    keep one with probability proportional to ``exp(model.score(hand))`` (``holding.py``:
    how much likelier the real opponent holds that hand than the sampler deals it;
    sampling-importance-resampling). ``dealer``: this decision's ``Dealer`` of ``know``."""
    dealer = dealer or Dealer(know)
    cands = [dealer.consistent(rng) for _ in range(draws)]
    scores = [model.score(h) for h, _s in cands]
    top = max(scores)
    return rng.choices(cands, weights=[math.exp(s - top) for s in scores])[0]
