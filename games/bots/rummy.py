"""Basic Rummy (2-4 players) policies on ``Knowledge``: draw, meld, lay off, discard, go out."""

from __future__ import annotations

import random
from typing import Any

from games.engine.meld import attach_mask
from games.engine.meld_search import best_melds

from .cardmath import BIT_VALUE, bits_of, dw, related, triples_with
from .knowledge import Knowledge

__all__ = ["RummyPolicy", "OUTS_WEIGHT", "count_outs", "layoff_targets", "can_finish"]

# A play-phase move: ("meld", mask), ("layoff", (bit, meld index)), ("discard", bit) or
# ("go_out", bit).
RummyPlay = tuple[str, int | tuple[int, int]]


def layoff_targets(know: Knowledge) -> int:
    """Cards (any) that could be laid off onto the table right now."""
    m = 0
    for kind, mm in know.table:
        m |= attach_mask(kind, mm)
    return m


def _closure(table: list[tuple[str, int]], cards: int) -> int:
    """Cards of ``cards`` that can be laid off, following chains (4 then 5 onto A-2-3)."""
    masks: list[list[Any]] = [[k, mm] for k, mm in table]  # [kind, mask], grown by lay-offs
    laid = 0
    changed = True
    while changed:
        changed = False
        for t in masks:
            att = attach_mask(t[0], t[1]) & cards & ~laid
            if att:
                low = att & -att
                laid |= low
                t[1] |= low
                changed = True
    return laid


def can_finish(know: Knowledge, hand: int, forbid: int) -> bool:
    """Could ``hand`` be emptied this turn (melds, lay-offs, at most one final discard)?"""
    res = best_melds(hand)
    dead = res.deadwood_mask
    left = dead & ~_closure(know.table, dead)
    n = left.bit_count()
    return n == 0 or (n == 1 and not left & forbid)


# What one out is worth in points when choosing a discard: an unseen card that would meld with
# what is kept. Rummy pays whoever goes out, so the cards that can still make melds matter more
# than the points in hand; a discard by points alone (keep the low cards) left every computer
# holding low cards that only another's hand could complete, and the stock ran out twice in 14%
# of three-player hands among Mediums (41% with four). bench/rummy_stalemates.py measures both
# the stalemates and the strength (docs/bots.md).
OUTS_WEIGHT = 12.0


def count_outs(hand: int, unseen: int) -> int:
    """The unseen cards that would meld with ``hand`` (lower its deadwood if drawn)."""
    d = dw(hand)
    n = 0
    for x in bits_of(related(hand) & unseen):
        if dw(hand | x) < d + BIT_VALUE[x]:
            n += 1
    return n


class RummyPolicy:
    """Level knobs: ``miss`` (chance to overlook a meld/lay-off), ``bad_discard`` (chance of a
    random discard), ``careful`` (danger-aware discards, takes lay-off cards), ``hold`` (keeps
    melds back to go rummy), ``outs`` (the points one out is worth, ``OUTS_WEIGHT``)."""

    def __init__(
        self,
        rng: random.Random,
        *,
        miss: float = 0.0,
        bad_discard: float = 0.0,
        careful: bool = False,
        hold: bool = False,
        outs: float = OUTS_WEIGHT,
    ) -> None:
        self.outs = outs
        self.rng = rng
        self.miss = miss
        self.bad_discard = bad_discard
        self.careful = careful
        self.hold = hold

    # ------------------------------------------------------------------ draw
    def take(self, know: Knowledge, top: int) -> bool:
        hand = know.hand
        if dw(hand | top) < dw(hand) + BIT_VALUE[top]:
            return self.rng.random() >= self.miss
        if self.careful and top & layoff_targets(know):
            return True
        return False

    # ------------------------------------------------------------------ play
    def holding(self, know: Knowledge) -> bool:
        """Keep melds in hand, hoping to go rummy (double) in one turn?"""
        if not self.hold:
            return False
        opp_min = min((o.size for o in know.opponents.values()), default=10)
        if opp_min <= 4 or know.stock < 6:
            return False
        res = best_melds(know.hand)
        return res.deadwood_mask.bit_count() <= 3

    def play(self, know: Knowledge, placed_before: bool) -> RummyPlay:
        """Next action in the play phase: ("meld", mask) / ("layoff", (bit, idx)) /
        ("discard", bit) / ("go_out", bit)."""
        hand = know.hand
        forbid = know.taken
        if not placed_before and self.holding(know) and not can_finish(know, hand, forbid):
            return self._discard(know, hand, forbid)
        res = best_melds(hand)
        for meld in res.melds:
            if self.rng.random() < self.miss:
                continue
            return "meld", meld.mask
        dead = res.deadwood_mask if res.melds else hand
        for i, (kind, mm) in enumerate(know.table):
            att = attach_mask(kind, mm) & dead
            if att and self.rng.random() >= self.miss:
                return "layoff", (att & -att, i)
        if hand.bit_count() == 1:
            return "go_out", hand
        return self._discard(know, hand, forbid)

    def discard_keys(
        self, know: Knowledge, hand: int, forbid: int
    ) -> list[tuple[tuple[Any, ...], int]]:
        """Every legal discard with its key (lower is better), best first."""
        nxt = know.opponents.get(know.next_seat())
        unseen = know.unseen()
        table_att = layoff_targets(know)
        out = []
        for b in bits_of(hand & ~forbid):
            h = hand ^ b
            d = dw(h)
            # the points kept, less what the cards that can still arrive would make of them
            key = d - self.outs * count_outs(h, unseen) if self.outs else float(d)
            if self.careful:
                if b & table_att:
                    key += 8.0  # it would go straight onto the table for the next player
                if nxt is not None:
                    for pair in triples_with(b):
                        if pair & nxt.known:
                            key += 6.0
                            break
                    if related(nxt.discarded | nxt.declined, 1) & b:
                        key -= 1.0
            out.append(((key, -BIT_VALUE[b], b), b))
        out.sort()
        return out

    def _discard(self, know: Knowledge, hand: int, forbid: int) -> tuple[str, int]:
        legal = [b for b in bits_of(hand & ~forbid)]
        if self.bad_discard and self.rng.random() < self.bad_discard:
            return "discard", legal[self.rng.randrange(len(legal))]
        ranked = self.discard_keys(know, hand, forbid)
        assert ranked
        return "discard", ranked[0][1]
