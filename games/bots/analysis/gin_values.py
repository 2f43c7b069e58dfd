"""Values of every legal option of a gin decision, from the deciding seat's view only.

The hidden cards (the opponent's hand and the stock order) are sampled as the Expert samples
them (``ExpertBot.gin_sample``: consistent with every public move of the opponent); each
option is then played out to the end of the hand on the same samples with the Expert's
playout policy for both seats, or scored exactly when it ends the hand (knock, gin, big gin).
Values are the deciding seat's net points of the hand (its points positive, the opponent's
negative), multiplier included. Lay-off decisions hide nothing and are valued exactly.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from games.engine.cards import Card
from games.engine.layoffs import best_layoffs
from games.engine.meld import Meld
from games.engine.meld_search import deadwood_of_mask

from ..cardmath import BIT_VALUE, bits_of, card_bit, dw, mask_from
from ..expert import ExpertBot
from ..gin_search import knock_points, playout
from ..knowledge import Knowledge

__all__ = ["GinSample", "gin_valuer", "layoff_values", "sim_takes"]

# (opponent's hand, stock with its top last, seed of the playout's own randomness)
GinSample = tuple[int, list[int], float]


def sim_takes(hand: int, top: int, limit: int, draws: int) -> bool:
    """Would the playout policy take ``top`` onto ``hand`` (``gin_search.playout``'s rule)?"""
    dh = dw(hand)
    v = BIT_VALUE[top]
    if dw(hand | top) < dh + v:
        return True
    if limit and v <= 4 and draws <= 6 and dh > 4:
        low = min(dw((hand | top) ^ b) for b in bits_of(hand))
        return low <= limit and low < dh - 4
    return False


def gin_valuer(
    bot: ExpertBot, know: Knowledge, view: dict[str, Any], actions: Sequence[str]
) -> tuple[Callable[[random.Random], GinSample], Callable[[int, GinSample], float]]:
    """(draw a sample, value of option ``i`` on a sample) for a gin decision."""
    rules = bot.rules_of(know)
    mine, theirs = bot.draws_of(know)
    sim = bot.sim
    drawn_at = know.drawn_hand_stock
    hand = know.hand
    pile = list(know.pile)
    top = know.top
    opp_passed = any(
        ev.get("kind") == "pass" and (ev.get("data") or {}).get("seat") != know.seat
        for ev in view.get("history") or ()
    )

    def draw(rng: random.Random) -> GinSample:
        opp, stock = bot.gin_sample(know, rng)
        return opp, stock, rng.random()

    def after(h11: int, forbid: int, opp: int, stock: list[int], pl: list[int], s: float) -> float:
        danger = sim["danger"]
        return float(
            bot.after_draw(h11, forbid, opp, stock, pl, rules, mine, theirs, s, danger, drawn_at)
        )

    def opp_moves(opp: int, me10: int, stock: list[int], pl: list[int], s: float) -> float:
        """The opponent draws next (from ``pl``'s top or the stock), then play goes on."""
        return -float(
            playout(
                [opp, me10], stock, pl, 0, rules, (theirs, mine), random.Random(s), **sim,
                drawn_at=drawn_at,
            )
        )

    def one(text: str) -> Callable[[GinSample], float]:
        if text in ("take_upcard", "draw:discard"):
            return lambda smp: after(hand | top, top, smp[0], smp[1], pile[:-1], smp[2])
        if text == "draw:stock":
            return lambda smp: after(hand | smp[1][-1], 0, smp[0], smp[1][:-1], pile, smp[2])
        if text == "pass":
            if opp_passed:
                # I am the dealer: the other player must now draw from the stock.
                return lambda smp: opp_moves(smp[0], hand, smp[1], [], smp[2])

            def passed(smp: GinSample) -> float:
                opp, stock, s = smp
                if sim_takes(opp, top, rules[0], theirs):
                    return opp_moves(opp, hand, stock, pile, s)
                # The dealer passes too: I must draw from the stock.
                return after(hand | stock[-1], 0, opp, stock[:-1], pile, s)

            return passed
        if text == "big_gin":
            return lambda smp: float(knock_points(hand, smp[0], True, True, rules))
        kind, _, card = text.partition(":")
        b = card_bit(card)
        h10 = hand ^ b
        if kind == "gin":
            return lambda smp: float(knock_points(h10, smp[0], True, False, rules))
        if kind == "knock":
            return lambda smp: float(knock_points(h10, smp[0], False, False, rules))
        if kind == "discard":

            def discard(smp: GinSample) -> float:
                opp, stock, s = smp
                if len(stock) <= drawn_at:
                    return 0.0
                return opp_moves(opp, h10, stock, pile + [b], s)

            return discard
        raise ValueError(f"no gin valuation for {text!r}")

    funcs = [one(t) for t in actions]
    return draw, lambda i, smp: funcs[i](smp)


def layoff_values(view: dict[str, Any], actions: Sequence[str]) -> list[float]:
    """Exact values for the defender of each lay-off option: every card is known (own hand,
    the knocker's melds and deadwood on the table); the defender's deadwood is the lowest
    arrangement of what is left, after the best further lay-offs for ``accept_layoffs``."""
    hand = mask_from(view.get("hand") or ())
    table = [Meld.from_mask(mask_from(cards)) for cards in view.get("table") or ()]
    showdown = view.get("showdown") or {}
    kd = int(showdown.get("knocker_deadwood") or 0)
    settings = view.get("settings") or {}
    mult = int(view.get("multiplier") or 1)
    undercut = int(settings.get("undercut_bonus", 25))

    def points(od: int) -> float:
        return float(-(od - kd) * mult if od > kd else (undercut + kd - od) * mult)

    out = []
    for text in actions:
        if text == "done":
            out.append(points(deadwood_of_mask(hand)))
        elif text == "accept_layoffs":
            out.append(points(best_layoffs(hand, table).deadwood))
        else:
            card, _, idx = text.partition(":")[2].partition(">")
            b = Card.parse(card).bit
            melds = list(table)
            i = int(idx)
            melds[i] = Meld.from_mask(melds[i].mask | b)
            out.append(points(best_layoffs(hand ^ b, melds).deadwood))
    return out
