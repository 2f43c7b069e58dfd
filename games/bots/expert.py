"""Expert: Hard plus determinized sampling search within a time budget.

At the decisions that matter (which card to throw, whether to knock, and whether to take a
discard that Hard's rules are unsure about) the Expert lists a few candidates, then repeatedly

1. samples the unseen cards consistently with everything it knows (the opponent keeps the
   cards it was seen taking; the rest of its hand is dealt from the unseen cards and thinned
   the way a player keeps their best ten; the remaining cards form the stock, in random order);
2. plays every candidate out to the end of the hand on that same sample (common random
   numbers) with a fast imitation of Hard for both players (takes discards that meld or let it
   knock, throws the least-deadwood card that does not feed the other hand, knocks early, late,
   or when its deadwood is clearly below the other's, goes gin), scoring the hand exactly as
   the engine would (knock, gin, big gin, undercut after the defender's best lay-offs, drawn
   hands, the hand's knock limit and multiplier); knocking now is scored exactly on the
   sample, without a playout;

and replaces Hard's choice by the candidate with the best average only when its gain is clear
(above ``min_gain`` points and ``confidence`` standard errors of the paired differences).
Its parameters, sample budget (bounded by samples, not by the clock, so a seeded Expert decides
the same however loaded the machine is), valuation and statistics are in ``expert_search.py``.
The samples are in ``gin_sampler.py`` and the playouts in ``gin_search.py``; in Basic Rummy
the Expert searches its discards the same way (see ``rummy_search.py``).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from games.engine.actions import Action

from .base import Kinds
from .cardmath import BIT_VALUE, card_text, dw, related
from .expert_search import PairedStats, SearchingBot, cpu_clock
from .gin import knock_pays, rank_discards
from .gin_search import Rules, choose_throw, knock_points, playout
from .knowledge import Knowledge
from .rummy_search import rummy_playout, sample_deal

__all__ = ["ExpertBot"]


class ExpertBot(SearchingBot):
    """Hard + sampling search on discard, knock and draw decisions (``time_budget`` seconds)."""

    name = "expert"

    # ------------------------------------------------------------------ draw
    def _take(self, know: Knowledge) -> bool:
        hard = self.gin.take(know, know.top)
        if not self.search_draws or know.num_players != 2 or not know.top:
            return hard
        top = know.top
        hand = know.hand
        # Obvious cases stay with Hard: a card that melds, or one that nothing in hand wants.
        if hard and dw(hand | top) < dw(hand) + BIT_VALUE[top]:
            return True
        if not hard and not (related(hand) & top) and BIT_VALUE[top] > 3:
            return False
        return self.search_draw(know, hard)

    def search_draw(self, know: Knowledge, hard: bool) -> bool:
        """Take the top discard (True) or draw from the stock, by playouts."""
        rules = self.rules_of(know)
        top = know.top
        hand = know.hand
        mine, theirs = self.draws_of(know)
        sim = self.sim
        pile_after = know.pile[:-1]
        stats = PairedStats(2)
        rng = self.rng
        danger = sim["danger"]
        drawn = know.drawn_hand_stock
        for opp, stock in self._samples(know, self.gin_sample, stats):
            seed = rng.random()
            vals = []
            for take in (hard, not hard):
                if take:
                    h11 = hand | top
                    pile = list(pile_after)
                    st = stock
                    forbid = top
                else:
                    h11 = hand | stock[-1]
                    pile = list(know.pile)
                    st = stock[:-1]
                    forbid = 0
                vals.append(
                    self._val(
                        self.after_draw(
                            h11, forbid, opp, st, pile, rules, mine, theirs, seed, danger, drawn
                        )
                    )
                )
            stats.add(vals)
        return hard if stats.winner(self.min_gain, self.confidence) == 0 else not hard

    def after_draw(
        self,
        h11: int,
        forbid: int,
        opp: int,
        stock: list[int],
        pile: list[int],
        rules: Rules,
        mine: int,
        theirs: int,
        seed: float,
        danger: float,
        drawn_at: int,
    ) -> int:
        """Value for me of holding ``h11`` after a draw, playing the rest like the sim policy."""
        limit, mult, gin_bonus, big_bonus, _u, big_ok = rules
        if big_ok and dw(h11) == 0:
            return (big_bonus + dw(opp)) * mult
        b, _d, kbest, kb = choose_throw(h11, forbid, opp, danger)
        if kbest == 0:
            return (gin_bonus + dw(opp)) * mult
        sim = self.sim
        if limit and kbest <= limit:
            go = mine + 1 <= self.params.early_knock_turns or len(stock) <= 4
            if not go:
                go = dw(opp) - kbest >= sim["margin"]
            if go:
                return knock_points(h11 ^ kb, opp, False, False, rules)
        if len(stock) <= drawn_at:
            return 0
        return -playout(
            [opp, h11 ^ b],
            stock,
            pile + [b],
            0,
            rules,
            (theirs, mine + 1),
            random.Random(seed),
            **sim,
            drawn_at=drawn_at,
        )

    # ------------------------------------------------------------------ discard / knock
    def _knock_ok(self, know: Knowledge, h10: int, kdw: int) -> bool:
        """Hard's knock rule, judged on opponent hands sampled consistently with their moves."""
        p = self.params
        if know.my_draws <= p.early_knock_turns or know.stock <= 4:
            return True
        opp_hands = [self.sample_hand(know, self.rng)[0] for _ in range(self.knock_samples)]
        return knock_pays(know, h10, opp_hands, p.knock_margin)

    def decide_discard(
        self, view: dict[str, Any], know: Knowledge, legal: Sequence[Action]
    ) -> tuple[str, int]:
        hand11 = know.hand
        forbid = know.taken
        if know.big_gin and dw(hand11) == 0:
            return "big_gin", 0
        params = self.params
        ranked = rank_discards(know, hand11, forbid, params)
        for _s, d, b in ranked:
            if d == 0:
                return "gin", b
        top_score = ranked[0][0]
        discards = [b for s, _d, b in ranked[: self.candidates] if s - top_score <= self.margin]
        knock_b = 0
        hard_knocks = False
        if know.knock_limit:
            kbest = min(d for _, d, _ in ranked)
            if kbest <= know.knock_limit:
                knock_b = min((s, b) for s, d, b in ranked if d == kbest)[1]
                hard_knocks = self._knock_ok(know, hand11 ^ knock_b, kbest)
        if know.num_players != 2 or (not self.search_knocks and hard_knocks):
            return ("knock", knock_b) if hard_knocks else ("discard", ranked[0][2])
        # Candidates: ("knock", b) / ("discard", b); Hard's own choice first.
        cands: list[tuple[str, int]] = []
        if hard_knocks:
            cands.append(("knock", knock_b))
        cands += [("discard", b) for b in discards]
        if knock_b and not hard_knocks and self.search_knocks:
            cands.append(("knock", knock_b))
        if len(cands) == 1:
            return cands[0]
        return cands[self.search(know, hand11, cands)]

    def search(self, know: Knowledge, hand11: int, cands: list[tuple[str, int]]) -> int:
        """Index of the best candidate by paired playouts (0, Hard's, unless clearly beaten)."""
        rules = self.rules_of(know)
        mine, theirs = self.draws_of(know)
        stats = PairedStats(len(cands))
        rng = self.rng
        sim = self.sim
        val = self._val
        drawn = know.drawn_hand_stock
        for opp, stock in self._samples(know, self.gin_sample, stats):
            seed = rng.random()
            vals = []
            for kind, b in cands:
                h10 = hand11 ^ b
                if kind == "knock":
                    vals.append(val(knock_points(h10, opp, False, False, rules)))
                elif len(stock) <= drawn:
                    vals.append(val(0))
                else:
                    vals.append(
                        val(
                            -playout(
                                [opp, h10],
                                stock,
                                know.pile + [b],
                                0,
                                rules,
                                (theirs, mine),
                                random.Random(seed),
                                **sim,
                                drawn_at=drawn,
                            )
                        )
                    )
            stats.add(vals)
        return stats.winner(self.min_gain, self.confidence)

    # ------------------------------------------------------------------ rummy
    def choose_rummy(
        self, view: dict[str, Any], know: Knowledge, legal: Sequence[Action], kinds: Kinds
    ) -> Action:
        if "discard" not in kinds or self.rummy_candidates < 2:
            return super().choose_rummy(view, know, legal, kinds)
        placed = bool((view.get("placed") or [False] * know.num_players)[know.seat])
        kind, arg = self.rummy.play(know, placed)
        if kind != "discard" or not isinstance(arg, int):
            return super().choose_rummy(view, know, legal, kinds)
        hand = know.hand
        ranked = self.rummy.discard_keys(know, hand, know.taken)
        allowed = {str(a) for a in kinds["discard"]}
        cands = [arg] + [b for _k, b in ranked if b != arg and f"discard:{card_text(b)}" in allowed]
        cands = cands[: self.rummy_candidates]
        if len(cands) > 1:
            flags = [bool(x) for x in view.get("placed") or [False] * know.num_players]
            flags[know.seat] = placed or bool(view.get("placed_this_turn"))
            arg = cands[self.search_rummy(know, hand, cands, flags)]
        text = f"discard:{card_text(arg)}"
        for a in kinds["discard"]:
            if str(a) == text:
                return a
        return super().choose_rummy(view, know, legal, kinds)

    def search_rummy(
        self, know: Knowledge, hand: int, cands: list[int], flags: list[bool]
    ) -> int:
        """Index of the best discard by paired rummy playouts (0 unless clearly beaten).

        ``flags[seat]``: that seat has melded or laid off this hand (no going rummy)."""
        me = know.seat
        n = know.num_players
        stats = PairedStats(len(cands))
        for opp_hands, stock in self._samples(know, sample_deal):
            vals = []
            for b in cands:
                hands = [opp_hands.get(s, 0) for s in range(n)]
                hands[me] = hand ^ b
                vals.append(
                    rummy_playout(
                        hands,
                        flags,
                        know.table,
                        stock,
                        know.pile + [b],
                        (me + 1) % n,
                        me,
                        going_rummy=know.going_rummy_multiplier,
                    )
                )
            stats.add(vals)
        return stats.winner(self.rummy_min_gain, self.rummy_confidence)

    # ------------------------------------------------------------------ dispatch
    def choose(self, view: dict[str, Any], legal: Sequence[Action]) -> Action:
        self.samples_used = 0
        self._started_cpu = cpu_clock()
        return super().choose(view, legal)

    def choose_gin(
        self, view: dict[str, Any], know: Knowledge, legal: Sequence[Action], kinds: Kinds
    ) -> Action:
        self._set_value(view, know)
        if "draw:discard" in kinds and "draw:stock" in kinds and know.top:
            return kinds["draw:discard" if self._take(know) else "draw:stock"][0]
        return super().choose_gin(view, know, legal, kinds)
