"""The Expert's search for the gin modes: fast throws and playouts.

``playout`` plays a hand to its end on a sample (``gin_sampler``: the opponent's hand and the
stock) with a fast imitation of Hard for both seats, and ``knock_points`` scores a showdown
exactly as the engine does (gin, big gin, the defender's best lay-offs, undercut), with the
mode's numbers in ``Rules``. ``choose_throw`` finds the deadwood of a hand less each of its
cards at once; the sampler thins its dealt hands with it (``random_throw``, ``throw_ties``).
"""

from __future__ import annotations

import random

from games.engine.cards import LANE_MASK, RANK_ALL
from games.engine.layoffs import layoff_deadwood
from games.engine.meld import RUN_DEADWOOD
from games.engine.meld_search import best_melds
from games.engine.modes import MODES, gin_mode

from .cardmath import BIT_VALUE, DW_CACHE, bits_of, dw

__all__ = [
    "Rules",
    "choose_throw",
    "knock_points",
    "meld_feeds",
    "pick_throw",
    "playout",
    "random_throw",
    "throw_ties",
]

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


def meld_feeds(other: int) -> int:
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
    return _throw(h11, forbid, meld_feeds(other) if danger else 0, danger)


def _throw(
    h11: int,
    forbid: int,
    hot: int,
    danger: float,
    rng: random.Random | None = None,
    ties: list[int] | None = None,
) -> tuple[int, int, int, int]:
    """``choose_throw`` with the cards that feed the other hand given (``meld_feeds``). With
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
    # and the cards that would meld with each hand (``meld_feeds``)
    feeds = [meld_feeds(hands[0]), meld_feeds(hands[1])]
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
        feeds[turn] = meld_feeds(h)
        pile.append(b)
        if len(stock) <= drawn_at:
            return 0
        turn = 1 - turn


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


def random_throw(hand: int, keep: int, rng: random.Random) -> int:
    """The card ``choose_throw`` would throw from ``hand`` (none of ``keep``, nothing known
    of the other hand), ties of deadwood and value broken at random: a reservoir over them in
    card order, one draw per tie as it is met (``pick_throw`` draws the same)."""
    return _throw(hand, keep, 0, 0.0, rng)[0]
