"""The Expert's search for the gin modes: sampled opponent hands and fast playouts.

``sample_consistent`` deals the opponent a hand consistent with what is known (it keeps the
cards it was seen taking, the rest is dealt from the unseen cards and thinned the way a player
keeps their best ten) and mostly rejects hands that contradict its moves; the remaining cards
form the stock. ``playout`` plays a hand to its end on such a sample with a fast imitation of
Hard for both seats, and ``knock_points`` scores a showdown exactly as the engine does (gin,
big gin, the defender's best lay-offs, undercut), with the mode's numbers in ``Rules``.
"""

from __future__ import annotations

import math
import random

from games.engine.cards import LANE_MASK, RANK_ALL
from games.engine.layoffs import layoff_deadwood
from games.engine.meld import RUN_DEADWOOD
from games.engine.meld_search import best_melds
from games.engine.modes import MODES, gin_mode

from .cardmath import BIT_VALUE, DW_CACHE, bits_of, dw
from .gin import deal_size, mask_of_bits
from .holding import HandModel
from .knowledge import Knowledge

__all__ = [
    "Dealer",
    "Rules",
    "choose_throw",
    "knock_points",
    "pick_throw",
    "playout",
    "sample_consistent",
    "sample_tilted",
    "thin_fast",
    "throw_ties",
]

_VAL100 = {b: v * 0.01 for b, v in BIT_VALUE.items()}

# ``Dealer`` keeps its thinning throws (``thin_fast``'s memo) when it can deal at most this
# many different hands.
MEMO_DEALS = 2000

# (knock limit, multiplier, gin bonus, big gin bonus, undercut bonus, big gin allowed)
Rules = tuple[int, int, int, int, int, bool]


def knock_points(knocker10: int, defender: int, gin: bool, big: bool, rules: Rules) -> int:
    """Points for the knocker (negative: the defender's undercut) of one showdown."""
    _limit, mult, gin_bonus, big_bonus, undercut, _big_ok = rules
    if gin:
        return ((big_bonus if big else gin_bonus) + dw(defender)) * mult
    mine = best_melds(knocker10)
    kdw = mine.deadwood
    od = layoff_deadwood(defender, [(m.kind, m.mask) for m in mine.melds])
    if od > kdw:
        return (od - kdw) * mult
    return -(undercut + kdw - od) * mult


def _set_choices(h: int, t: int) -> tuple[int, list[int]]:
    """(forced, choices): the ways to lay sets from the ranks of ``t`` (the ranks of ``h``
    with 3-4 cards). A rank none of whose cards can be in a run (no 3 in a row of its suit
    in ``h``) always lays all its cards (``forced``, in every choice: they would be deadwood
    otherwise); any other rank lays none, all its cards or (with four) any three."""
    x = h & (h >> 1) & (h >> 2)
    runnable = x | (x << 1) | (x << 2)
    forced = 0
    out = [0]
    while t:
        low = t & -t
        t ^= low
        k = h & (low * RANK_ALL)
        if not k & runnable:
            forced |= k
            continue
        opts = [0, k]
        if k.bit_count() == 4:
            opts += [k ^ x for x in bits_of(k)]
        out = [c | o for c in out for o in opts]
    return forced, [c | forced for c in out]


def _feeds(other: int) -> int:
    """The cards that make a 3-card meld with two cards of ``other`` (a hand without them):
    a rank where it holds two, or the ends and middle of its pairs one or two apart in a suit
    (the 13-bit lanes have 3 empty bits between them, so shifts never reach another suit)."""
    a = other & LANE_MASK
    b = (other >> 16) & LANE_MASK
    c = (other >> 32) & LANE_MASK
    d = other >> 48
    two = (a & (b | c | d)) | (b & (c | d)) | (c & d)
    runs = (other >> 1) & (other >> 2) | (other << 1) & (other >> 1) | (other << 1) & (other << 2)
    return (two * RANK_ALL) | runs


def choose_throw(h11: int, forbid: int, other: int, danger: float) -> tuple[int, int, int, int]:
    """(card to throw, deadwood left, least deadwood reachable, card reaching it).

    The throw minimises deadwood plus ``danger`` if the card melds with the other hand (the
    simulated player's guess of what feeds the opponent), preferring high cards on ties.

    The hottest loop of the playouts, so the deadwood of every ``h11`` less one card is found
    at once, exactly (as ``meld_search`` finds it): the best arrangement of a hand is some
    choice of sets (``_set_choices``) plus the runs of what is left, whose run-only deadwood
    is one ``RUN_DEADWOOD`` lookup per suit lane. Taking card b away leaves every card that
    could not be in a run unable to, so the choices of ``h11`` less b are those of ``h11``
    that leave b out, except when b is in a forced set: with four cards the other three are
    still forced (the cards left are those of ``h11``'s choice), with three the set is gone.
    Taking b away changes one lane, so a card costs one lookup per choice (one choice in
    most hands)."""
    return _throw(h11, forbid, _feeds(other) if danger else 0, danger)


def _throw(
    h11: int,
    forbid: int,
    hot: int,
    danger: float,
    rng: random.Random | None = None,
    ties: list[int] | None = None,
) -> tuple[int, int, int, int]:
    """``choose_throw`` with the cards that feed the other hand given (``_feeds``). With
    ``rng``, the card thrown is chosen at random among the best ties (equal deadwood left and
    value), not the first in card order. With ``ties``, it lists, in card order, each card
    that ties the best so far and a 0 each time a card beats it (``throw_ties`` reads it)."""
    best_b = kb = 0
    n_ties = 0
    best_key = 1e9
    best_d = kbest = 999
    kkey = 1e9
    rd = RUN_DEADWOOD
    lm = LANE_MASK
    val = _VAL100
    a = h11 & lm
    b2 = (h11 >> 16) & lm
    c = (h11 >> 32) & lm
    e = h11 >> 48
    t = (a & b2 & (c | e)) | (c & e & (a | b2))
    forced = 0
    rows = []
    if t:
        forced, choices = _set_choices(h11, t)
        if len(choices) == 1:
            r = h11 ^ forced
            a, b2, c, e = r & lm, (r >> 16) & lm, (r >> 32) & lm, r >> 48
            t = 0
        else:
            for sets in choices:
                r = h11 ^ sets
                ls = (r & lm, (r >> 16) & lm, (r >> 32) & lm, r >> 48)
                rs = (rd[ls[0]], rd[ls[1]], rd[ls[2]], rd[ls[3]])
                rows.append((sets, ls, rs, rs[0] + rs[1] + rs[2] + rs[3]))
    lanes = (a, b2, c, e)
    rds = (rd[a], rd[b2], rd[c], rd[e])
    base = rds[0] + rds[1] + rds[2] + rds[3]
    m = h11 & ~forbid
    for s in range(4):
        shift = 16 * s
        lane = (m >> shift) & lm
        while lane:
            lb = lane & -lane
            lane ^= lb
            b = lb << shift
            if b & forced:
                k = h11 & (lb * RANK_ALL)
                if k.bit_count() == 4:
                    d = min(row[3] for row in rows) if rows else base
                else:
                    d = 999
                    for sets in (row[0] for row in rows) if rows else (forced,):
                        r = h11 ^ sets ^ k ^ b
                        v = rd[r & lm] + rd[(r >> 16) & lm] + rd[(r >> 32) & lm] + rd[r >> 48]
                        if v < d:
                            d = v
            elif t:
                d = 999
                for sets, ls, rs, tot in rows:
                    if not sets & b:
                        v = tot - rs[s] + rd[ls[s] ^ lb]
                        if v < d:
                            d = v
            else:
                d = base - rds[s] + rd[lanes[s] ^ lb]
            key = d - val[b]
            if b & hot:
                key += danger
            if key < best_key:
                best_key, best_b, best_d = key, b, d
                n_ties = 1
                if ties is not None:
                    ties.append(0)
            elif key == best_key:
                if ties is not None:
                    ties.append(b)
                elif rng is not None:
                    n_ties += 1
                    if rng.random() * n_ties < 1.0:
                        best_b, best_d = b, d
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
    drawn_at: int = gin_mode(MODES["classic"]).drawn_hand_stock,
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
    get = DW_CACHE.get
    # each hand's deadwood once known (choose_throw gives it for the hand it leaves), else -1
    dws = [-1, -1]
    # and the cards that would meld with each hand (``_feeds``)
    feeds = [_feeds(hands[0]), _feeds(hands[1])]
    while True:
        h = hands[turn]
        other = hands[1 - turn]
        forbid = 0
        top = pile[-1] if pile else 0
        take = False
        if top:
            dh = dws[turn]
            if dh < 0:
                dh = dw(h)
            v = BIT_VALUE[top]
            if top & feeds[turn]:
                dt = get(h | top)
                if dt is None:
                    dt = dw(h | top)
                take = dt < dh + v
            # (else top is in no meld of h | top, whose deadwood is then dh + v: no take)
            if not take and limit and v <= 4 and nd[turn] <= 6 and dh > 4:
                low = choose_throw(h | top, top, 0, 0.0)[2]
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
        b, d, kbest, kb = _throw(h, forbid, feeds[1 - turn] if danger else 0, danger)
        do = dws[1 - turn]
        if kbest == 0:
            # An 11-card hand with no deadwood always has a 10-card subset without any.
            if big_ok and dw(h) == 0:
                pts = (big_bonus + (do if do >= 0 else dw(other))) * mult
            else:
                pts = (gin_bonus + (do if do >= 0 else dw(other))) * mult
            return pts if turn == 0 else -pts
        if limit and kbest <= limit:
            go = nd[turn] <= early or len(stock) <= 4
            if not go:
                est: float = (do if do >= 0 else dw(other)) - kbest
                if gauss is not None:
                    est += gauss(0.0, noise)
                go = est >= margin
            if go:
                pts = knock_points(h ^ kb, other, False, False, rules)
                return pts if turn == 0 else -pts
        h ^= b
        hands[turn] = h
        dws[turn] = d
        feeds[turn] = _feeds(h)
        pile.append(b)
        if len(stock) <= drawn_at:
            return 0
        turn = 1 - turn


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


def throw_ties(hand: int, keep: int) -> tuple[int, tuple[int, ...]]:
    """How ``thin_fast`` throws one card of ``hand`` (none of ``keep``): (how many random
    draws it spends on ties that a later card beats, the cards leaving the least deadwood,
    ties broken towards the highest, in card order). ``pick_throw`` chooses among them."""
    log: list[int] = []
    first = _throw(hand, keep, 0, 0.0, None, log)[0]
    n = len(log)
    new_bests = log.count(0)
    if new_bests == n:
        return 0, (first,)  # no ties at all (or nothing to throw: first is 0)
    start = n - 1 - log[::-1].index(0)  # where the best key's group starts
    return n - new_bests - (n - start - 1), (first, *log[start + 1 :])


def pick_throw(entry: tuple[int, tuple[int, ...]], rng: random.Random) -> int:
    """The card ``entry`` (``throw_ties``) throws: one of its best at random, drawn as a
    reservoir over them in card order (one draw per tie, as they are met)."""
    beaten, best = entry
    rand = rng.random
    for _ in range(beaten):
        rand()
    b = best[0]
    for n in range(2, len(best) + 1):
        if rand() * n < 1.0:
            b = best[n - 1]
    return b


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
    playouts' ``_throw``, which finds the deadwood of the hand less each card at once.

    ``memo`` (for one ``keep``) keeps each hand's ``throw_ties``, for decisions that deal
    the same hands again and again (``Dealer``). The cards thrown and the random draws are
    the same with or without it."""
    if memo is None:
        for _ in range(extra):
            hand ^= _throw(hand, keep, 0, 0.0, rng)[0]
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
        threw = self.threw & ~hand & _feeds(hand)
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
