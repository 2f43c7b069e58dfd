"""How likely a sampled opponent hand is, given what the opponent threw, took and declined.

The Expert's sampler (``gin_sampler.sample_consistent``) deals the opponent's unknown cards and
thins them like a player keeping their best ten. Measured against the real hands of self-play
(``bench/hand_model.py``), its hands are too good: it finds the opponent able to knock about
twice as often as they really are, and it places cards near what the opponent threw too
often. This module scores a sampled hand by a log-linear model learned to tell the real hand
from the sampler's hands in the same position (a conditional logit over one real hand and
several samples): the score is the log of how much likelier the real opponent is to hold that
hand than the sampler is to deal it. ``gin_sampler.sample_tilted`` draws a few samples and
keeps one with probability proportional to ``exp(score)`` (sampling-importance-resampling),
which moves the samples towards the real hands' distribution.

Two kinds of features, reading only ``Knowledge`` (the seat's view):

- each unknown card of the hand (``CARD_FEATURES``, summed over those cards): how it relates
  (same rank, next in suit, two apart in suit) to the cards the opponent discarded, declined
  and took, to the cards out of their reach (my hand, the pile) and to the other unseen
  cards, its point value, and that value against how long the opponent has been drawing;
- the hand as a whole (``HAND_FEATURES``): its deadwood, whether it is gin or could knock,
  and those against how long the opponent has drawn, how many cards they took and the value
  of their last throw.

The weights are data (``holding_weights.py``, a Python module written by the training
command, so that the offline game's package carries it too), one set per gin mode, each fitted
on that mode's own hands: Hard keeps and knocks differently in each (no knocking at all in
Straight Gin, a limit set by the upcard in Oklahoma), and in Straight Gin Classic's weights fit
the real hands clearly worse (docs/bots.md, issue #26's fifth session of 2026-12-03).
"""

from __future__ import annotations

from functools import cache, lru_cache

from games.engine.cards import RANK_ALL

from .cardmath import BIT_VALUE, FULL_MASK, bits_of, dw
from .gin import GinParams
from .knowledge import Knowledge

__all__ = ["CARD_FEATURES", "FEATURES", "HAND_FEATURES", "MODES", "HandModel", "load_weights"]

CARD_FEATURES = (
    "value",
    "rank_disc",
    "adj_disc",
    "gap_disc",
    "rank_decl",
    "adj_decl",
    "gap_decl",
    "rank_took",
    "adj_took",
    "gap_took",
    "rank_dead",
    "adj_dead",
    "rank_unseen",
    "adj_unseen",
    "value_draws",
    "last_rank",
    "last_adj",
)
HAND_FEATURES = (
    "gin",
    "knock",
    "dw",
    "dw_sq",
    "dw_draws",
    "dw_took",
    "knock_draws",
    "knock_took",
    "knock_last",
    "knock_early",
)
FEATURES = CARD_FEATURES + HAND_FEATURES
# The gin modes with weights of their own; another mode (none yet) would take Classic's.
MODES = ("classic", "straight", "oklahoma", "hollywood")

EARLY_DRAWS = GinParams().early_knock_turns  # Hard knocks with anything legal this early


@cache
def _relatives(b: int) -> tuple[int, int, int]:
    """(same rank, next in suit, two apart in suit) of card bit ``b``, without ``b``."""
    pos = b.bit_length() - 1
    rank = RANK_ALL << (pos % 16)
    adj = ((b << 1) | (b >> 1)) & FULL_MASK
    gap = ((b << 2) | (b >> 2)) & FULL_MASK
    return rank & ~b, adj, gap


def card_features(know: Knowledge) -> dict[int, list[float]]:
    """The ``CARD_FEATURES`` of every card the seat cannot place, by card bit."""
    opp = know.opponent()
    disc = opp.discarded
    decl = opp.declined & ~disc
    took = opp.took
    unseen = know.unseen()
    dead = know.hand | know.pile_mask | know.gone
    draws = (opp.stock_draws + took.bit_count()) / 10
    last = know.taken or know.top
    if not last & disc:
        last = 0
    out = {}
    for b in bits_of(unseen):
        rank, adj, gap = _relatives(b)
        v = BIT_VALUE[b] / 10
        f = [v]
        for m in (disc, decl, took):
            f += [(rank & m).bit_count(), (adj & m).bit_count(), (gap & m).bit_count()]
        f += [
            (rank & dead).bit_count(),
            (adj & dead).bit_count(),
            (rank & unseen).bit_count(),
            (adj & unseen).bit_count(),
            v * draws,
            1.0 if rank & last else 0.0,
            1.0 if adj & last else 0.0,
        ]
        out[b] = f
    return out


class HandModel:
    """The model applied to one decision's ``Knowledge``: ``score(hand)`` and ``features``."""

    def __init__(self, know: Knowledge, weights: tuple[float, ...]) -> None:
        opp = know.opponent()
        self.known = opp.known
        self.limit = know.knock_limit
        took = opp.took.bit_count()
        draws = opp.stock_draws + took
        self.draws = draws / 10
        self.took = took
        last = know.taken or know.top
        self.last = BIT_VALUE[last] / 10 if last and last & opp.discarded else 0.0
        self.early = 1.0 if draws <= EARLY_DRAWS else 0.0
        self.cards = card_features(know)
        n = len(CARD_FEATURES)
        self.card_w = weights[:n]
        self.hand_w = weights[n:]
        self.card_z = {
            b: sum(w * x for w, x in zip(self.card_w, f, strict=True))
            for b, f in self.cards.items()
        }

    def hand_features(self, hand: int) -> list[float]:
        d = dw(hand)
        knock = 1.0 if self.limit and d <= self.limit else 0.0
        d10 = d / 10
        return [
            1.0 if d == 0 else 0.0,
            knock,
            d10,
            d10 * d10,
            d10 * self.draws,
            d10 * self.took,
            knock * self.draws,
            knock * self.took,
            knock * self.last,
            knock * self.early,
        ]

    def features(self, hand: int) -> list[float]:
        """``FEATURES`` of ``hand`` (the card features summed over its unknown cards)."""
        sums = [0.0] * len(CARD_FEATURES)
        for b in bits_of(hand & ~self.known):
            for i, x in enumerate(self.cards[b]):
                sums[i] += x
        return sums + self.hand_features(hand)

    def score(self, hand: int) -> float:
        """Log of how much likelier the real opponent holds ``hand`` than the sampler deals it
        (up to a constant of the position)."""
        z = 0.0
        card_z = self.card_z
        for b in bits_of(hand & ~self.known):
            z += card_z[b]
        for w, x in zip(self.hand_w, self.hand_features(hand), strict=True):
            z += w * x
        return z


@lru_cache(maxsize=8)
def load_weights(mode: str = "classic") -> tuple[float, ...]:
    """``mode``'s stored weights, in ``FEATURES`` order (Classic's for a mode without any)."""
    from .holding_weights import WEIGHTS

    weights = WEIGHTS.get(mode) or WEIGHTS["classic"]
    if tuple(weights) != FEATURES:
        raise ValueError(f"holding_weights.py holds weights for other features: {list(weights)}")
    return tuple(float(v) for v in weights.values())
