"""Gin Rummy judgement on bit masks: discards, draws, danger, opponent sampling, knocking.

Everything here is pure and fast: ``dw`` is the engine's exact deadwood solver, memoised.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from games.engine.layoffs import best_layoffs
from games.engine.meld_search import best_melds

from .cardmath import BIT_VALUE, bits_of, dw, related, triples_with
from .knowledge import Knowledge

__all__ = [
    "GinParams",
    "melds_into",
    "discard_options",
    "min_deadwood_discards",
    "potential",
    "danger",
    "rank_discards",
    "sample_opponent",
    "knock_value",
    "knock_pays",
]


@dataclass(frozen=True)
class GinParams:
    """Weights of the Hard evaluation (tuned by botmatch runs, see docs/bots.md)."""

    potential_weight: float = 1.0
    horizon: float = 3.0
    danger_weight: float = 3.0
    danger_late: float = 5.0
    knock_samples: int = 12
    knock_margin: float = 7.0  # expected knock points needed to knock instead of playing on
    early_knock_turns: int = 4  # knock with anything legal this early


def melds_into(hand: int, b: int) -> bool:
    """Is card ``b`` melded in the best arrangement of ``hand | b``?"""
    return dw(hand | b) < dw(hand) + BIT_VALUE[b]


def discard_options(hand11: int, forbid: int = 0) -> list[tuple[int, int]]:
    """(card bit, deadwood left) for every legal discard."""
    return [(b, dw(hand11 ^ b)) for b in bits_of(hand11 & ~forbid)]


def min_deadwood_discards(hand11: int, forbid: int = 0) -> tuple[int, list[int]]:
    opts = discard_options(hand11, forbid)
    best = min(d for _, d in opts)
    return best, [b for b, d in opts if d == best]


def potential(h10: int, avail: int, horizon: float, n_unseen: int) -> float:
    """Expected deadwood saved by the next ``horizon`` draws (cards in ``avail`` only)."""
    base = dw(h10)
    if base == 0 or not n_unseen:
        return 0.0
    gain = 0
    for x in bits_of(related(h10) & avail):
        g = base + BIT_VALUE[x] - dw(h10 | x)
        if g > 0:
            gain += g
    return gain * horizon / max(n_unseen, 1)


def _card_prob(know: Knowledge) -> tuple[int, int, float]:
    """(known opponent cards, cards unlikely for the opponent, base probability of an unseen)."""
    opp = know.opponent()
    unseen = know.unseen()
    n_unseen = unseen.bit_count()
    unknown_slots = max(opp.size - opp.known.bit_count(), 0)
    q = unknown_slots / n_unseen if n_unseen else 0.0
    # The opponent threw or passed these: cards that meld with them are less likely kept.
    cold = related(opp.discarded | opp.declined, 1) & unseen
    return opp.known, cold, q


def danger(b: int, know: Knowledge, probs: tuple[int, int, float] | None = None) -> float:
    """Chance that discarding ``b`` hands the opponent a meld (or a lay-off they want)."""
    known, cold, q = probs if probs is not None else _card_prob(know)
    unseen = know.unseen()
    p_none = 1.0
    for pair in triples_with(b):
        p = 1.0
        for x in bits_of(pair):
            if x & known:
                continue
            if x & unseen:
                p *= q * (0.45 if x & cold else 1.0)
            else:
                p = 0.0
                break
        p_none *= 1.0 - p
    return 1.0 - p_none


def rank_discards(
    know: Knowledge, hand11: int, forbid: int, params: GinParams
) -> list[tuple[float, int, int]]:
    """Every legal discard scored (lower is better): (score, deadwood left, card bit)."""
    unseen = know.unseen()
    n_unseen = unseen.bit_count()
    # The opponent may hold some unseen cards; the pile is closed to us except its new top.
    avail = unseen
    stock_turns = max(know.stock - 2, 0) / 2.0
    horizon = min(params.horizon, stock_turns)
    probs = _card_prob(know)
    late = min(know.my_draws / 10.0, 1.0)
    wdanger = params.danger_weight + (params.danger_late - params.danger_weight) * late
    out = []
    for b in bits_of(hand11 & ~forbid):
        h10 = hand11 ^ b
        d = dw(h10)
        score = d - params.potential_weight * potential(h10, avail, horizon, n_unseen)
        score += wdanger * danger(b, know, probs)
        out.append((score, d, b))
    out.sort()
    return out


def sample_opponent(know: Knowledge, rng: random.Random, extra_cap: int = 6) -> tuple[int, int]:
    """A plausible hand for the opponent and the rest of the unseen cards (the stock).

    The opponent keeps the cards they were seen taking; the rest is drawn from the unseen cards,
    with a few extra cards dealt and then thrown greedily (highest deadwood first), which models
    a player who has seen ``10 + stock draws`` cards and kept the best ten.
    """
    hand, chosen, rest, extra = deal_opponent(know, rng, extra_cap)
    for _ in range(extra):
        best = None
        best_key = None
        for x in chosen:
            if not hand & x:
                continue
            key = (dw(hand ^ x), -BIT_VALUE[x])
            if best_key is None or key < best_key:
                best_key = key
                best = x
        assert best is not None
        hand ^= best
        rest.append(best)
    return hand, mask_of_bits(rest)


def deal_opponent(
    know: Knowledge, rng: random.Random, extra_cap: int
) -> tuple[int, list[int], list[int], int]:
    """The opponent's sampled hand before thinning: the cards they were seen taking plus
    unseen cards, ``extra`` more than they hold (one per stock draw, at most ``extra_cap``).
    Returns (hand mask, the unseen cards dealt to it, the other unseen cards, extra)."""
    pool = list(bits_of(know.unseen()))
    need, extra = deal_size(know, len(pool), extra_cap)
    rng.shuffle(pool)
    chosen = pool[: need + extra]
    rest = pool[need + extra :]
    return know.opponent().known | mask_of_bits(chosen), chosen, rest, extra


def deal_size(know: Knowledge, pool: int, extra_cap: int) -> tuple[int, int]:
    """(unknown cards the opponent holds, extra cards dealt them to thin: one per stock draw,
    at most ``extra_cap``) when ``pool`` unseen cards are dealt from."""
    opp = know.opponent()
    need = max(opp.size - opp.known.bit_count(), 0)
    return need, min(opp.stock_draws, extra_cap, max(pool - need, 0))


def mask_of_bits(bits: list[int]) -> int:
    mask = 0
    for x in bits:
        mask |= x
    return mask


# Points of a typical won hand (knocks and gins between good players average about 20).
TYPICAL_HAND = 20


def knock_value(
    know: Knowledge, h10: int, samples: list[int], value: Callable[[int], float] | None = None
) -> tuple[float, float]:
    """(expected hand points, chance of an undercut) of knocking with ``h10`` now, against
    the sampled opponent hands. With ``value`` (hand points, mine positive -> worth), the
    expectation is of ``value`` of each result instead of its points."""
    mult = know.multiplier
    mine = best_melds(h10)
    kdw = mine.deadwood
    if kdw == 0:
        return float(know.gin_bonus), 0.0  # gin: ``play`` goes gin before it asks to knock
    melds = mine.melds
    total = 0.0
    under = 0
    cache: dict[int, int] = {}
    bonus = know.undercut_bonus
    for opp in samples:
        od = cache.get(opp)
        if od is None:
            od = best_layoffs(opp, melds).deadwood
            cache[opp] = od
        if od > kdw:
            pts = od - kdw
        else:
            pts = -(bonus + kdw - od)
            under += 1
        total += pts * mult if value is None else value(pts * mult)
    n = max(len(samples), 1)
    return total / n, under / n


def knock_pays(know: Knowledge, h10: int, samples: list[int], margin: float) -> bool:
    """Hard's knock rule: knock when the knock's expected worth beats playing on by
    ``margin`` points and an undercut is unlikely (< 35%).

    Worth is points times the multiplier, or in Hollywood what the result adds to the three
    games (``know.hand_value``: line and game bonuses, in each column the winner's hand counts
    in). Playing on is then worth an even chance of winning or losing a typical hand
    (``TYPICAL_HAND`` points) later, and the margin is scaled by the worth of a point there;
    with plain points this is exactly ``ev >= margin * multiplier``."""
    value = know.hand_value
    ev, under = knock_value(know, h10, samples, value)
    if value is None:
        need = margin * know.multiplier
    else:
        up, down = value(TYPICAL_HAND), value(-TYPICAL_HAND)
        need = (up + down) / 2 + margin * (up - down) / (2 * TYPICAL_HAND)
    return ev >= need and under < 0.35
