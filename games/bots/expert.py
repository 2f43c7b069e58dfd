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
In Basic Rummy the Expert searches its discards the same way (see ``rummy_search.py``).
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from games.engine.actions import Action
from games.engine.layoffs import best_layoffs
from games.engine.melds import best_melds
from games.engine.modes import MODES

from .cardmath import _DW_CACHE, _TRIPLES, BIT_VALUE, bits_of, dw, melds_with, related
from .equity import GameEquity
from .gin import (
    GinParams,
    deal_opponent,
    knock_pays,
    mask_of_bits,
    rank_discards,
    sample_opponent,
)
from .knowledge import Knowledge
from .levels import HardBot, _txt
from .rummy_search import rummy_playout, sample_deal

__all__ = ["ExpertBot", "playout", "knock_points"]

_VAL100 = {b: v * 0.01 for b, v in BIT_VALUE.items()}

# (knock limit, multiplier, gin bonus, big gin bonus, undercut bonus, big gin allowed)
Rules = tuple[int, int, int, int, int, bool]


def knock_points(knocker10: int, defender: int, gin: bool, big: bool, rules: Rules) -> int:
    """Points for the knocker (negative: the defender's undercut) of one showdown."""
    _limit, mult, gin_bonus, big_bonus, undercut, _big_ok = rules
    if gin:
        return ((big_bonus if big else gin_bonus) + dw(defender)) * mult
    mine = best_melds(knocker10)
    kdw = mine.deadwood
    od = best_layoffs(defender, mine.melds).deadwood
    if od > kdw:
        return (od - kdw) * mult
    return -(undercut + kdw - od) * mult


def _choose_throw(h11: int, forbid: int, other: int, danger: float) -> tuple[int, int, int, int]:
    """(card to throw, deadwood left, least deadwood reachable, card reaching it).

    The throw minimises deadwood plus ``danger`` if the card melds with the other hand (the
    simulated player's guess of what feeds the opponent), preferring high cards on ties.
    (The hottest loop of the playouts: the memo and the meld table are read inline.)"""
    best_b = kb = 0
    best_key = 1e9
    best_d = kbest = 999
    kkey = 1e9
    get = _DW_CACHE.get
    m = h11 & ~forbid
    while m:
        b = m & -m
        m ^= b
        x = h11 ^ b
        d = get(x)
        if d is None:
            d = dw(x)
        key = d - _VAL100[b]
        if danger:
            for pair in _TRIPLES[b]:
                if pair & other == pair:
                    key += danger
                    break
        if key < best_key:
            best_key, best_b, best_d = key, b, d
        if d < kbest or (d == kbest and key < kkey):
            kbest, kb, kkey = d, b, key
    return best_b, best_d, kbest, kb


def playout(
    hands: list[int],
    stock: list[int],
    pile: list[int],
    turn: int,
    rules: Rules,
    draws: tuple[int, int] = (5, 5),
    rng: random.Random | None = None,
    danger: float = 4.0,
    margin: float = 8.0,
    noise: float = 6.0,
    early: int = 4,
    drawn_at: int = MODES["classic"].drawn_hand_stock,
) -> int:
    """Play a gin hand to its end with a fast imitation of Hard; return seat 0's net points.

    ``hands`` are the two hands (10 cards each, the player to move first), ``stock`` pops from
    the end, ``pile`` is the discard pile (top last), ``draws`` how many times each seat has
    drawn this hand (early knocks). A player knocks when it may and either it is early, the
    stock is nearly out, or its deadwood is ``margin`` below the other hand's (estimated with
    ``noise``, as Hard estimates it from samples). The hand is drawn once a discard leaves
    ``drawn_at`` cards or fewer in the stock (the mode's ``drawn_hand_stock``).
    """
    limit, mult, gin_bonus, big_bonus, _under, big_ok = rules
    hands = list(hands)
    pile = list(pile)
    stock = list(stock)
    nd = list(draws)
    gauss = rng.gauss if rng is not None and noise else None
    get = _DW_CACHE.get
    while True:
        h = hands[turn]
        other = hands[1 - turn]
        forbid = 0
        top = pile[-1] if pile else 0
        take = False
        if top:
            dh = get(h)
            if dh is None:
                dh = dw(h)
            v = BIT_VALUE[top]
            dt = get(h | top)
            if dt is None:
                dt = dw(h | top)
            if dt < dh + v:
                take = True
            elif limit and v <= 4 and nd[turn] <= 6 and dh > 4:
                h11 = h | top
                low = min(dw(h11 ^ b) for b in bits_of(h))
                take = low <= limit and low < dh - 4
        if take:
            pile.pop()
            h |= top
            forbid = top
        elif stock:
            h |= stock.pop()
        else:
            return 0
        nd[turn] += 1
        b, _d, kbest, kb = _choose_throw(h, forbid, other, danger)
        if kbest == 0:
            # An 11-card hand with no deadwood always has a 10-card subset without any.
            if big_ok and dw(h) == 0:
                pts = (big_bonus + dw(other)) * mult
            else:
                pts = (gin_bonus + dw(other)) * mult
            return pts if turn == 0 else -pts
        if limit and kbest <= limit:
            go = nd[turn] <= early or len(stock) <= 4
            if not go:
                est = dw(other) - kbest
                if gauss is not None:
                    est += gauss(0.0, noise)
                go = est >= margin
            if go:
                pts = knock_points(h ^ kb, other, False, False, rules)
                return pts if turn == 0 else -pts
        h ^= b
        hands[turn] = h
        pile.append(b)
        if len(stock) <= drawn_at:
            return 0
        turn = 1 - turn


def sample_opponent_fast(
    know: Knowledge, rng: random.Random, extra_cap: int = 6
) -> tuple[int, int]:
    """``gin.sample_opponent`` with a cheaper greedy thinning (same hands up to ties).

    Throwing card x lowers the deadwood by at most its value, and by exactly its value when
    x has no meld partner in the hand; so the best throw is the highest such loose card unless
    a higher partnered card does better, and only those are solved."""
    hand, chosen, rest, extra = deal_opponent(know, rng, extra_cap)
    triples = _TRIPLES
    value = BIT_VALUE
    for _ in range(extra):
        loose_v = -1
        loose = 0
        partnered = []
        for x in chosen:
            if not hand & x:
                continue
            v = value[x]
            rest_h = hand ^ x
            for pair in triples[x]:
                if pair & rest_h == pair:
                    partnered.append(x)
                    break
            else:
                if v > loose_v:
                    loose_v, loose = v, x
        best = loose
        if loose:
            base = dw(hand)
            best_key = (base - loose_v, -loose_v)
            cands = [x for x in partnered if value[x] > loose_v]
        else:
            best_key = None
            cands = partnered
        for x in cands:
            key = (dw(hand ^ x), -value[x])
            if best_key is None or key < best_key:
                best_key, best = key, x
        hand ^= best
        rest.append(best)
    return hand, mask_of_bits(rest)


def _violations(know: Knowledge, hand: int) -> int:
    """How many public moves of the opponent a sampled ``hand`` contradicts: cards they threw
    or declined that would meld with it, cards they took that it does not meld."""
    opp = know.opponent()
    bad = 0
    for d in bits_of((opp.declined | opp.discarded) & ~hand):
        if melds_with(d, hand):
            bad += 1
    for t in bits_of(opp.known & hand):
        if not melds_with(t, hand ^ t):
            bad += 1
    return bad


def sample_consistent(
    know: Knowledge, rng: random.Random, tries: int = 6, keep: float = 0.15
) -> tuple[int, int]:
    """``sample_opponent`` with rejection: a sample is kept with probability
    ``keep ** violations`` (see ``_violations``); after ``tries`` the least-violating one."""
    best = None
    best_v = 1 << 30
    for _ in range(tries):
        hand, stock = sample_opponent_fast(know, rng)
        v = _violations(know, hand)
        if v == 0 or rng.random() < keep**v:
            return hand, stock
        if v < best_v:
            best, best_v = (hand, stock), v
    assert best is not None
    return best


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
        b, _d, kbest, kb = _choose_throw(h11, forbid, opp, danger)
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
