"""The Expert's search for Basic Rummy (2-4 players): sampled playouts of discard candidates.

The unseen cards are dealt to the opponents (each keeps the cards it was seen taking from the
pile) and to the stock consistently with every hand size; then each candidate discard is
played out to the end of the hand on the same deal with a fast rummy player for every seat
(takes a discard that melds or lays off, melds and lays off everything at once, goes out as
soon as it can, throws its highest loose card that nobody can lay off). The hand is scored as
the engine scores it (the winner takes the value of every card left in the losers' hands,
doubled for going rummy); a stock that runs out ends the playout as a stalemate.
"""

from __future__ import annotations

import random
from typing import Any

from games.engine.meld import attach_mask
from games.engine.meld_search import best_melds
from games.engine.modes import MODES, rummy_mode

from .cardmath import BIT_VALUE, bits_of, dw, related
from .knowledge import Knowledge

__all__ = ["sample_deal", "rummy_playout", "attach_all", "rummy_throw", "finish_turn"]


def sample_deal(know: Knowledge, rng: random.Random) -> tuple[dict[int, int], list[int]]:
    """Opponents' hands (by seat) and a shuffled stock, consistent with what ``know`` holds."""
    pool = list(bits_of(know.unseen()))
    rng.shuffle(pool)
    hands: dict[int, int] = {}
    i = 0
    for seat, opp in know.opponents.items():
        h = opp.known
        need = max(opp.size - opp.known.bit_count(), 0)
        for x in pool[i : i + need]:
            h |= x
        i += need
        hands[seat] = h
    return hands, pool[i:]


def _hand_value(mask: int) -> int:
    return sum(BIT_VALUE[b] for b in bits_of(mask))


def attach_all(table: list[list[Any]], hand: int) -> int:
    """Lay off every card of ``hand`` that fits the table (following chains); the rest."""
    changed = True
    while changed and hand:
        changed = False
        for t in table:
            att = attach_mask(t[0], t[1]) & hand
            while att:
                low = att & -att
                hand ^= low
                t[1] |= low
                att = attach_mask(t[0], t[1]) & hand
                changed = True
    return hand


def rummy_throw(hand: int, forbid: int, table_att: int) -> int:
    best, best_key = 0, None
    for b in bits_of(hand & ~forbid):
        rest = hand ^ b
        key = -BIT_VALUE[b]
        if b & table_att:
            key += 8
        if related(b) & rest:
            key += 4
        if best_key is None or key < best_key:
            best, best_key = b, key
    return best or (hand & -hand)


def rummy_playout(
    hands: list[int],
    placed: list[bool],
    table: list[tuple[str, int]],
    stock: list[int],
    pile: list[int],
    turn: int,
    me: int,
    max_turns: int = 200,
    going_rummy: int = rummy_mode(MODES["rummy"]).going_rummy_multiplier,
) -> float:
    """Play the hand out from ``turn``'s draw; return ``me``'s result: the points it wins, or
    minus the points another player wins (0 for a stalemate). A player who goes out without
    having melded or laid off before scores ``going_rummy`` times the points."""
    hands = list(hands)
    placed = list(placed)
    tab: list[list[Any]] = [[k, m] for k, m in table]  # [kind, mask], grown by lay-offs
    stock = list(stock)
    pile = list(pile)
    n = len(hands)
    for _ in range(max_turns):
        h = hands[turn]
        top = pile[-1] if pile else 0
        table_att = 0
        for k, m in tab:
            table_att |= attach_mask(k, m)
        forbid = 0
        if top and (dw(h | top) < dw(h) + BIT_VALUE[top] or top & table_att):
            pile.pop()
            h |= top
            forbid = top
        elif stock:
            h |= stock.pop()
        else:
            return 0.0
        won = finish_turn(hands, placed, tab, pile, turn, h, forbid, going_rummy)
        if won is not None:
            return won if turn == me else -won
        turn = (turn + 1) % n
    return 0.0


def finish_turn(
    hands: list[int],
    placed: list[bool],
    tab: list[list[Any]],
    pile: list[int],
    turn: int,
    h: int,
    forbid: int,
    going_rummy: int,
) -> float | None:
    """The rest of ``turn``'s turn after its draw (``h`` holds the drawn card, ``forbid`` the
    card taken from the pile): meld everything, lay off everything, go out if it can (return
    the points it wins) or throw a card (update ``hands``, ``placed``, ``tab``, ``pile``; None).
    """
    before = h
    res = best_melds(h)
    for meld in res.melds:
        tab.append([meld.kind, meld.mask])
        h &= ~meld.mask
    h = attach_all(tab, h)
    if h == 0 or (h.bit_count() == 1 and not h & forbid):
        pts = sum(_hand_value(hands[s]) for s in range(len(hands)) if s != turn)
        if not placed[turn]:
            pts *= going_rummy
        return float(pts)
    if h != before:
        placed[turn] = True
    table_att = 0
    for k, m in tab:
        table_att |= attach_mask(k, m)
    b = rummy_throw(h, forbid, table_att)
    h ^= b
    hands[turn] = h
    pile.append(b)
    return None
