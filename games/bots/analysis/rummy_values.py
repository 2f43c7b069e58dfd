"""Values of every legal option of a Basic Rummy decision, from the deciding seat's view only.

The opponents' hands and the stock are sampled as the Expert samples them
(``rummy_search.sample_deal``: every opponent keeps the cards it was seen taking, the rest
is dealt from the unseen cards); each option is applied, the rest of the turn is played by
the Expert's fast rummy player (meld and lay off everything, go out if possible, else throw),
and the hand is played out by that player for every seat (``rummy_playout``). Values are the
deciding seat's points of the hand: what it wins, or minus what another player wins.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from games.engine.meld import Meld

from ..cardmath import BIT_VALUE, bits_of, card_bit, mask_from
from ..knowledge import Knowledge
from ..rummy_search import finish_turn, rummy_playout, sample_deal

__all__ = ["RummySample", "rummy_valuer"]

# (opponents' hands by seat, stock with its top last)
RummySample = tuple[dict[int, int], list[int]]


def _placed_this_turn(view: dict[str, Any], seat: int) -> bool:
    """Has ``seat`` melded or laid off since its last draw (the public history says)?"""
    placed = False
    for ev in view.get("history") or ():
        if (ev.get("data") or {}).get("seat") != seat:
            continue
        kind = ev.get("kind")
        if kind == "draw":
            placed = False
        elif kind in ("meld", "layoff"):
            placed = True
    return placed


def rummy_valuer(
    know: Knowledge, view: dict[str, Any], actions: Sequence[str]
) -> tuple[Callable[[random.Random], RummySample], Callable[[int, RummySample], float]]:
    """(draw a sample, value of option ``i`` on a sample) for a rummy decision."""
    me = know.seat
    n = know.num_players
    nxt = (me + 1) % n
    hand = know.hand
    pile = list(know.pile)
    top = know.top
    forbid_now = know.taken
    gr = know.going_rummy_multiplier
    placed0 = [bool(p) for p in (view.get("placed") or [False] * n)]
    table0 = list(know.table)
    this_turn = _placed_this_turn(view, me)

    def draw(rng: random.Random) -> RummySample:
        return sample_deal(know, rng)

    def hands_of(smp: RummySample, mine: int) -> list[int]:
        hands = [smp[0].get(s, 0) for s in range(n)]
        hands[me] = mine
        return hands

    def win(hands: list[int], placed_before: bool) -> float:
        pts = sum(BIT_VALUE[b] for s in range(n) if s != me for b in bits_of(hands[s]))
        return float(pts * (1 if placed_before else gr))

    def go_on(
        hands: list[int], placed: list[bool], tab: list[tuple[str, int]], stock: list[int],
        pl: list[int],
    ) -> float:
        if not stock and not pl:
            return 0.0
        return rummy_playout(hands, placed, tab, stock, pl, nxt, me, going_rummy=gr)

    def play_on(
        hands: list[int], h: int, forbid: int, tab0: list[tuple[str, int]], stock: list[int],
        pl: list[int], placed_now: bool,
    ) -> float:
        """Finish my turn holding ``h`` (meld, lay off, discard), then the others play on;
        ``placed_now``: I melded or laid off this turn already."""
        placed = list(placed0)
        tab: list[list[Any]] = [[k, m] for k, m in tab0]
        pl = list(pl)
        won = finish_turn(hands, placed, tab, pl, me, h, forbid, gr)
        if won is not None:
            return won
        if placed_now:
            placed[me] = True
        return go_on(hands, placed, [(k, m) for k, m in tab], stock, pl)

    def after_draw(smp: RummySample, h: int, forbid: int, stock: list[int], pl: list[int]) -> float:
        return play_on(hands_of(smp, hand), h, forbid, table0, stock, pl, False)

    def placed_after(extra: bool) -> list[bool]:
        placed = list(placed0)
        if this_turn or extra:
            placed[me] = True
        return placed

    def one(text: str) -> Callable[[RummySample], float]:
        if text == "draw:stock":

            def stock_draw(smp: RummySample) -> float:
                if not smp[1]:
                    return 0.0
                return after_draw(smp, hand | smp[1][-1], 0, smp[1][:-1], pile)

            return stock_draw
        if text == "draw:discard":
            return lambda smp: after_draw(smp, hand | top, top, list(smp[1]), pile[:-1])
        kind, _, arg = text.partition(":")
        if kind == "go_out":
            return lambda smp: win(hands_of(smp, 0), placed0[me])
        if kind == "discard":
            b = card_bit(arg)

            def discard(smp: RummySample) -> float:
                hands = hands_of(smp, hand ^ b)
                return go_on(hands, placed_after(False), table0, list(smp[1]), pile + [b])

            return discard
        if kind == "meld":
            m = mask_from(arg.split(","))
            kind_m = Meld.from_mask(m).kind
            return lambda smp: placed_play(smp, hand ^ m, table0 + [(kind_m, m)])
        if kind == "layoff":
            card, _, idx = arg.partition(">")
            b = card_bit(card)
            i = int(idx)
            tab = list(table0)
            tab[i] = (tab[i][0], tab[i][1] | b)
            return lambda smp: placed_play(smp, hand ^ b, tab)
        raise ValueError(f"no rummy valuation for {text!r}")

    def placed_play(smp: RummySample, h: int, tab0: list[tuple[str, int]]) -> float:
        """After a meld or lay-off: out at once if the hand is empty, else finish the turn."""
        hands = hands_of(smp, h)
        if h == 0:
            return win(hands, placed0[me])
        return play_on(hands, h, forbid_now, tab0, list(smp[1]), pile, True)

    funcs = [one(t) for t in actions]
    return draw, lambda i, smp: funcs[i](smp)
