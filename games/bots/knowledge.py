"""What a seat knows, rebuilt from its view: the bots' card memory.

``Knowledge`` is built from one ``view_for(state, seat)`` dict only (never the state), so a
bot cannot see hidden cards. From the public move history of the current hand it remembers
every card seen: each opponent's discards, the cards they took from the discard pile (known to
be in their hand until discarded again) and the discards they declined.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from games.engine.meld import Meld
from games.engine.modes import MODES, get_mode, gin_mode, mode_from_dict, rummy_mode

from .cardmath import FULL_MASK, card_bit, mask_from
from .equity import hollywood_value

__all__ = ["Knowledge", "Opponent", "from_view"]

# Defaults of the rule numbers below (a view always carries its mode's own, in "settings").
_GIN = gin_mode(MODES["classic"])
_RUMMY = rummy_mode(MODES["rummy"])


@dataclass
class Opponent:
    seat: int
    size: int = _GIN.hand_size  # cards in hand
    known: int = 0  # cards known to be in the hand (taken from the pile, not discarded since)
    discarded: int = 0  # every card this opponent discarded this hand
    declined: int = 0  # top discards they could have taken but did not
    took: int = 0  # every card they ever took from the pile this hand
    stock_draws: int = 0


@dataclass
class Knowledge:
    seat: int
    num_players: int
    family: str  # "gin" or "rummy"
    mode: str
    hand: int
    pile: list[int] = field(default_factory=list)  # discard pile bits, bottom -> top
    stock: int = 0
    opponents: dict[int, Opponent] = field(default_factory=dict)
    knock_limit: int = _GIN.knock_limit  # this hand's; 0: gin only
    multiplier: int = 1
    big_gin: bool = _GIN.big_gin
    # The mode's rule numbers (from the view's settings).
    gin_bonus: int = _GIN.gin_bonus
    big_gin_bonus: int = _GIN.big_gin_bonus
    undercut_bonus: int = _GIN.undercut_bonus
    drawn_hand_stock: int = _GIN.drawn_hand_stock  # a gin hand is drawn at this stock size
    going_rummy_multiplier: int = _RUMMY.going_rummy_multiplier
    my_draws: int = 0  # turns I have drawn this hand
    taken: int = 0  # card just taken from the pile (may not be discarded this turn)
    table: list[tuple[str, int]] = field(default_factory=list)  # rummy melds (kind, mask)
    scores: list[int] = field(default_factory=list)
    target: int = _GIN.target
    gone: int = 0  # cards out of play for good (rummy: on the table; gin: pile below top)
    reshuffled: bool = False
    # What a hand's points (mine positive) are worth to the match, where that is not the
    # points themselves: Hollywood's columns (``equity.hollywood_value``); None elsewhere.
    hand_value: Callable[[int], float] | None = None

    @property
    def top(self) -> int:
        return self.pile[-1] if self.pile else 0

    @property
    def pile_mask(self) -> int:
        m = 0
        for b in self.pile:
            m |= b
        return m

    def opp_known(self) -> int:
        m = 0
        for o in self.opponents.values():
            m |= o.known
        return m

    def unseen(self) -> int:
        """Cards whose place this seat does not know: in the stock or an opponent's hand."""
        table = 0
        for _, mm in self.table:
            table |= mm
        return FULL_MASK & ~(self.hand | self.pile_mask | self.opp_known() | table | self.gone)

    def opponent(self) -> Opponent:
        """The (first) opponent; in two-player games the only one."""
        return next(iter(self.opponents.values()))

    def next_seat(self) -> int:
        return (self.seat + 1) % self.num_players


def from_view(view: dict[str, Any]) -> Knowledge:
    """Everything the seat of ``view`` knows, from that view alone."""
    seat = view["seat"]
    n = view["num_players"]
    settings: dict[str, Any] = view.get("settings") or {}
    mode = view["mode"]
    family = MODES[mode].family
    counts = view.get("card_counts") or [MODES[mode].hand_size_for(n)] * n
    known_lists = view.get("known_cards") or [[] for _ in range(n)]
    know = Knowledge(
        seat=seat,
        num_players=n,
        family=family,
        mode=mode,
        hand=mask_from(view.get("hand") or ()),
        pile=[card_bit(c) for c in view.get("discard_pile") or ()],
        stock=view.get("stock_count", 0),
        knock_limit=view.get("knock_limit") or 0,
        multiplier=view.get("multiplier") or 1,
        big_gin=bool(settings.get("big_gin", _GIN.big_gin)),
        gin_bonus=settings.get("gin_bonus", _GIN.gin_bonus),
        big_gin_bonus=settings.get("big_gin_bonus", _GIN.big_gin_bonus),
        undercut_bonus=settings.get("undercut_bonus", _GIN.undercut_bonus),
        drawn_hand_stock=settings.get("drawn_hand_stock", _GIN.drawn_hand_stock),
        going_rummy_multiplier=settings.get(
            "going_rummy_multiplier", _RUMMY.going_rummy_multiplier
        ),
        scores=list(view.get("scores") or [0] * n),
        target=view.get("target") or MODES[mode].target_for(n),
    )
    if mode == "hollywood" and n == 2:
        rules = mode_from_dict(settings) if settings else get_mode(mode)
        know.hand_value = hollywood_value(
            gin_mode(rules), view.get("score_sheet") or {}, view.get("hands_won") or [0, 0], seat
        )
    if view.get("to_act") == seat and view.get("taken_card"):
        know.taken = card_bit(view["taken_card"])
    for s in range(n):
        if s == seat:
            continue
        know.opponents[s] = Opponent(seat=s, size=counts[s], known=mask_from(known_lists[s]))
    for cards in view.get("table") or ():
        m = mask_from(cards)
        know.table.append((Meld.from_mask(m).kind, m))
    # Replay the public history of this hand for discards, declines and draw counts.
    pile: list[int] = []
    for ev in view.get("history") or ():
        kind = ev.get("kind")
        data = ev.get("data") or {}
        who = data.get("seat")
        opp = know.opponents.get(who) if who is not None else None
        if kind == "deal":
            pile = [card_bit(data["upcard"])]
            know.reshuffled = False
        elif kind == "pass":
            if opp is not None and pile:
                opp.declined |= pile[-1]
        elif kind == "take_upcard":
            b = pile.pop() if pile else card_bit(data["card"])
            if opp is not None:
                opp.took |= b
            elif who == seat:
                know.my_draws += 1
        elif kind == "draw":
            if data.get("source") == "discard":
                b = pile.pop() if pile else card_bit(data["card"])
                if opp is not None:
                    opp.took |= b
            else:
                if opp is not None:
                    opp.stock_draws += 1
                    if pile:
                        opp.declined |= pile[-1]
            if who == seat:
                know.my_draws += 1
        elif kind == "discard":
            b = card_bit(data["card"])
            pile.append(b)
            if opp is not None:
                opp.discarded |= b
        elif kind == "reshuffle":
            pile = [card_bit(data["top"])] if data.get("top") else []
            know.reshuffled = True
    return know
