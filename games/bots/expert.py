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
By default a decision is bounded by samples, not by the clock: ``max_samples`` (and
``extend_samples``) decide when a search ends, so a seeded Expert decides the same however
loaded the machine is. ``hard_limit`` (seconds) is a safety net only: a decision that reaches
it stops sampling and is counted in ``cut_short`` (the server logs it). A ``time_budget``
(seconds) may be given to cap a decision by time instead, after at least ``min_samples``
(benchmarks that trade strength for speed use it). A search that ends its ``max_samples``
undecided (a candidate ahead by ``extend_from`` to ``confidence`` standard errors) samples on to
``extend_samples`` and is judged again, so the extra time goes to the close decisions.
The samples and playouts are in ``gin_search.py``; in Basic Rummy the Expert searches its
discards the same way (see ``rummy_search.py``).
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from games.engine.actions import Action

from .cardmath import BIT_VALUE, bits_of, dw, related
from .equity import GameEquity
from .gin import (
    GinParams,
    knock_pays,
    rank_discards,
    sample_opponent,
)
from .gin_search import Rules, choose_throw, knock_points, playout, sample_consistent
from .knowledge import Knowledge
from .levels import HardBot, _txt
from .rummy_search import rummy_playout, sample_deal

__all__ = ["ExpertBot"]


class _Stats:
    """Running paired differences of each candidate against candidate 0 (Hard's choice)."""

    def __init__(self, k: int) -> None:
        self.k = k
        self.n = 0
        self.diff = [0.0] * k
        self.diff_sq = [0.0] * k

    def add(self, vals: Sequence[float]) -> None:
        base = vals[0]
        for i in range(1, self.k):
            d = vals[i] - base
            self.diff[i] += d
            self.diff_sq[i] += d * d
        self.n += 1

    def _gains(self, min_gain: float):
        """(candidate, mean paired gain, its standard error) of those gaining over ``min_gain``."""
        n = max(self.n, 1)
        for i in range(1, self.k):
            mean = self.diff[i] / n
            if mean > min_gain:
                var = max(self.diff_sq[i] / n - mean * mean, 0.0)
                yield i, mean, (var / n) ** 0.5

    def best_t(self, min_gain: float) -> float:
        """The largest t (mean / standard error) of a candidate gaining over ``min_gain``."""
        return max(
            (mean / se if se > 0 else float("inf") for _i, mean, se in self._gains(min_gain)),
            default=0.0,
        )

    def winner(self, min_gain: float, confidence: float) -> int:
        """The candidate with the best mean gain clearing ``confidence`` errors, else 0."""
        best, best_mean = 0, 0.0
        for i, mean, se in self._gains(min_gain):
            if mean > confidence * se and mean > best_mean:
                best, best_mean = i, mean
        return best


class ExpertBot(HardBot):
    """Hard + sampling search on discard, knock and draw decisions (``time_budget`` seconds)."""

    name = "expert"

    def __init__(
        self,
        rng: random.Random | None = None,
        params: GinParams | None = None,
        time_budget: float | None = None,
        max_samples: int = 48,
        min_samples: int = 16,
        candidates: int = 4,
        margin: float = 8.0,
        knock_samples: int = 24,
        min_gain: float = 0.25,
        confidence: float = 1.5,
        search_draws: bool = True,
        search_knocks: bool = True,
        sim_danger: float = 4.0,
        sim_margin: float = 8.0,
        sim_noise: float = 6.0,
        rummy_candidates: int = 3,
        rummy_min_gain: float = 0.5,
        rummy_confidence: float = 1.5,
        consistent: bool = True,
        score_aware: bool = True,
        knock_margin: float | None = None,
        hard_limit: float = 3.0,
        extend_samples: int = 144,
        extend_from: float = 0.75,
        **options: Any,
    ) -> None:
        if knock_margin is not None:
            params = replace(params or GinParams(), knock_margin=float(knock_margin))
        super().__init__(rng, params=params, **options)
        self.time_budget = None if time_budget is None else float(time_budget)
        self.max_samples = int(max_samples)
        self.min_samples = min(int(min_samples), self.max_samples)
        self.candidates = candidates
        self.margin = margin
        self.knock_samples = knock_samples
        self.min_gain = min_gain
        self.confidence = confidence
        self.search_draws = search_draws
        self.search_knocks = search_knocks
        self.sim = {"danger": sim_danger, "margin": sim_margin, "noise": sim_noise}
        self.rummy_candidates = rummy_candidates
        self.rummy_min_gain = rummy_min_gain
        self.rummy_confidence = rummy_confidence
        self.sampler = sample_consistent if consistent else sample_opponent
        self.samples_used = 0  # samples of the last decision's search (0: no search)
        self.score_aware = score_aware
        # Seconds after which a decision stops sampling even below ``min_samples``: a safety
        # net for a machine so loaded that the sample budget would take too long. Decisions
        # it cut short are counted (they are the only ones that depend on the machine).
        self.hard_limit = float(hard_limit)
        self.cut_short = 0
        # Gin searches that end ``max_samples`` undecided (a candidate ahead of Hard's choice
        # by ``extend_from`` to ``confidence`` standard errors) go on to ``extend_samples``
        # samples, within the same time budget, and are then judged once more.
        self.extend_samples = max(int(extend_samples), self.max_samples)
        self.extend_from = float(extend_from)
        self._started = time.perf_counter()
        self._value: Any = None

    # ------------------------------------------------------------------ helpers
    def _rules(self, know: Knowledge) -> Rules:
        return (
            know.knock_limit,
            know.multiplier,
            know.gin_bonus,
            know.big_gin_bonus,
            know.undercut_bonus,
            know.big_gin,
        )

    def _set_value(self, view: dict[str, Any], know: Knowledge) -> None:
        """How this decision's searches value a hand result (points, mine positive).

        Classic, Straight and Oklahoma: the chance of winning the game from the new score
        (``equity.GameEquity``, in points at the current score). Hollywood: what the hand adds
        to the three-game total difference: its points, the line bonus and, if it carries a
        column to the target, the game bonus, in every column the winner's hand counts in.
        Otherwise (or with ``score_aware=False``) the hand's points."""
        self._value = None
        if not self.score_aware or know.num_players != 2:
            return
        seat = know.seat
        scores = know.scores or [0, 0]
        if know.mode == "hollywood":
            self._value = know.hand_value  # equity.hollywood_value
            return
        if know.mode in ("classic", "straight", "oklahoma"):
            eq = GameEquity(know.mode, know.target, scores[seat], scores[1 - seat])
            self._value = eq.value

    def _val(self, points: int) -> float:
        f = self._value
        return points if f is None else f(points)

    def _draws(self, know: Knowledge) -> tuple[int, int]:
        """(my draws, opponent's draws) this hand, for the playouts' early-knock rule."""
        opp = know.opponent()
        return know.my_draws, opp.stock_draws + opp.took.bit_count()

    def _gin_sample(self, know: Knowledge, rng: random.Random) -> tuple[int, list[int]]:
        """One (opponent hand, shuffled stock) consistent with what ``know`` holds."""
        opp, stock_mask = self.sampler(know, rng)
        stock = list(bits_of(stock_mask))
        rng.shuffle(stock)
        return opp, stock

    def _samples(self, know: Knowledge, stats: _Stats | None = None, draw=None):
        """Yield samples (``draw(know, rng)``, by default an opponent hand and a shuffled
        stock) until the time budget or the cap is reached; sets ``samples_used``.

        With ``stats``, a search still undecided at ``max_samples`` goes on to
        ``extend_samples`` (see ``__init__``)."""
        draw = draw or self._gin_sample
        now = time.perf_counter()
        t_end = None if self.time_budget is None else now + self.time_budget
        t_stop = self._started + self.hard_limit
        rng = self.rng
        n = 0
        cap = self.max_samples
        while True:
            if n >= cap:
                undecided = (
                    stats is not None
                    and cap < self.extend_samples
                    and self.extend_from <= stats.best_t(self.min_gain) < self.confidence
                )
                if not undecided:
                    break
                cap = self.extend_samples
            if t_end is not None and n >= self.min_samples and time.perf_counter() > t_end:
                break
            if n >= 2 and time.perf_counter() > t_stop:
                self.cut_short += 1
                break
            sample = draw(know, rng)
            n += 1
            self.samples_used = n
            yield sample

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
        rules = self._rules(know)
        top = know.top
        hand = know.hand
        mine, theirs = self._draws(know)
        sim = self.sim
        pile_after = know.pile[:-1]
        stats = _Stats(2)
        rng = self.rng
        danger = sim["danger"]
        drawn = know.drawn_hand_stock
        for opp, stock in self._samples(know, stats):
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
                        self._after_draw(
                            h11, forbid, opp, st, pile, rules, mine, theirs, seed, danger, drawn
                        )
                    )
                )
            stats.add(vals)
        return hard if stats.winner(self.min_gain, self.confidence) == 0 else not hard

    def _after_draw(
        self, h11, forbid, opp, stock, pile, rules, mine, theirs, seed, danger, drawn_at
    ):
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
        opp_hands = [self.sampler(know, self.rng)[0] for _ in range(self.knock_samples)]
        return knock_pays(know, h10, opp_hands, p.knock_margin)

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
        rules = self._rules(know)
        mine, theirs = self._draws(know)
        stats = _Stats(len(cands))
        rng = self.rng
        sim = self.sim
        val = self._val
        drawn = know.drawn_hand_stock
        for opp, stock in self._samples(know, stats):
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
    def choose_rummy(self, view, know, legal, kinds):
        if "discard" not in kinds or self.rummy_candidates < 2:
            return super().choose_rummy(view, know, legal, kinds)
        placed = bool((view.get("placed") or [False] * know.num_players)[know.seat])
        kind, arg = self.rummy.play(know, placed)
        if kind != "discard":
            return super().choose_rummy(view, know, legal, kinds)
        hand = know.hand
        ranked = self.rummy.discard_keys(know, hand, know.taken)
        allowed = {str(a) for a in kinds["discard"]}
        cands = [arg] + [b for _k, b in ranked if b != arg and f"discard:{_txt(b)}" in allowed]
        cands = cands[: self.rummy_candidates]
        if len(cands) > 1:
            flags = [bool(x) for x in view.get("placed") or [False] * know.num_players]
            flags[know.seat] = placed or bool(view.get("placed_this_turn"))
            arg = cands[self.search_rummy(know, hand, cands, flags)]
        text = f"discard:{_txt(arg)}"
        for a in kinds["discard"]:
            if str(a) == text:
                return a
        return super().choose_rummy(view, know, legal, kinds)

    def search_rummy(self, know: Knowledge, hand: int, cands: list[int], flags: list) -> int:
        """Index of the best discard by paired rummy playouts (0 unless clearly beaten).

        ``flags[seat]``: that seat has melded or laid off this hand (no going rummy)."""
        me = know.seat
        n = know.num_players
        stats = _Stats(len(cands))
        for opp_hands, stock in self._samples(know, draw=sample_deal):
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
        self._started = time.perf_counter()
        return super().choose(view, legal)

    def choose_gin(self, view, know, legal, kinds):
        self._set_value(view, know)
        if "draw:discard" in kinds and "draw:stock" in kinds and know.top:
            return kinds["draw:discard" if self._take(know) else "draw:stock"][0]
        return super().choose_gin(view, know, legal, kinds)
