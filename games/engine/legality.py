"""Legality: the legal actions of each phase (one function per phase, in a table).

``legal_actions`` is the single source of legality; ``play.is_legal`` agrees with it.
"""

from __future__ import annotations

from collections.abc import Callable

from .actions import Action, ActionKind
from .cards import LANE_MASK, RANK_ALL, cards_of
from .errors import IllegalActionError, WrongPhaseError
from .meld import RUN_BLOCKS, attach_mask
from .meld_search import deadwood_of_mask
from .modes import GinMode
from .phases import Phase
from .state import GameState

__all__ = ["legal_actions", "possible_melds", "wrong_phase"]

K = ActionKind


def _A(text: str) -> Action:
    return Action.parse(text)


def _offer(state: GameState) -> list[Action]:
    return [_A(K.TAKE_UPCARD), _A(K.PASS)]


def _draw(state: GameState) -> list[Action]:
    out = []
    if state.stock:
        out.append(_A(K.DRAW_STOCK))
    if state.discard and not state.stock_only:
        out.append(_A(K.DRAW_DISCARD))
    return out


def _discard(state: GameState) -> list[Action]:
    """Gin's discard phase: discard, knock or gin with any card but the one just taken."""
    hand = state.hands[state.turn]
    taken = state.taken
    out = []
    m = 0
    for c in hand:
        m |= c.bit
    limit = state.knock_limit
    knocks = []
    gins = []
    for c in sorted(hand):
        if c is taken:
            continue
        out.append(_A(f"discard:{c.text}"))
        dw = deadwood_of_mask(m ^ c.bit)
        if dw == 0:
            gins.append(_A(f"gin:{c.text}"))
        elif dw <= limit:
            knocks.append(_A(f"knock:{c.text}"))
    out.extend(knocks)
    out.extend(gins)
    mode = state.mode  # the discard phase is gin's
    if isinstance(mode, GinMode) and mode.big_gin and deadwood_of_mask(m) == 0:
        out.append(_A(K.BIG_GIN))
    return out


def _layoff(state: GameState) -> list[Action]:
    """Gin's defender after a knock: lay off card by card, accept the best lay-offs, or stop."""
    out = []
    for c in sorted(state.hands[state.turn]):
        for i, (kind, mm) in enumerate(state.table):
            if attach_mask(kind, mm) & c.bit:
                out.append(Action(K.LAYOFF, c, target=i))
    out.append(_A(K.ACCEPT_LAYOFFS))
    out.append(_A(K.DONE))
    return out


def _play(state: GameState) -> list[Action]:
    """Rummy's turn after the draw: meld, lay off, then discard (or go out with the last card).
    Nothing may leave only the card just taken from the discard pile."""
    hand = state.hands[state.turn]
    taken = state.taken
    out = []
    m = 0
    for c in hand:
        m |= c.bit
    n = len(hand)
    tb = taken.bit if taken is not None else 0
    for mm in possible_melds(m):
        left = m ^ mm
        if left and left == tb:
            continue
        out.append(Action(K.MELD, cards=tuple(cards_of(mm))))
    for c in sorted(hand):
        left = m ^ c.bit
        if left and left == tb:
            continue
        for i, (kind, mm) in enumerate(state.table):
            if attach_mask(kind, mm) & c.bit:
                out.append(Action(K.LAYOFF, c, target=i))
    if n == 1:
        c = hand[0]
        if c is not taken:
            out.append(_A(f"go_out:{c.text}"))
    else:
        for c in sorted(hand):
            if c is not taken:
                out.append(_A(f"discard:{c.text}"))
    return out


def _over(state: GameState) -> list[Action]:
    return []


_BY_PHASE: dict[Phase, Callable[[GameState], list[Action]]] = {
    Phase.OFFER: _offer,
    Phase.DRAW: _draw,
    Phase.DISCARD: _discard,
    Phase.LAYOFF: _layoff,
    Phase.PLAY: _play,
    Phase.OVER: _over,
}


def legal_actions(state: GameState) -> list[Action]:
    """Every legal action for the seat to act (empty only when the game is over)."""
    return _BY_PHASE[state.phase](state)


def wrong_phase(s: GameState, act: Action) -> IllegalActionError:
    """The error for an action that the current phase does not allow."""
    allowed = sorted({a.kind for a in legal_actions(s)})
    return WrongPhaseError(
        f"{act} is not allowed in phase {s.phase.value!r}; allowed here: {', '.join(allowed)}"
    )


def possible_melds(m: int) -> list[int]:
    """Every meld (as a card mask) that can be made from the cards of mask ``m``, sorted."""
    out = []
    for r in range(13):
        k = m & (RANK_ALL << r)
        n = k.bit_count()
        if n >= 3:
            out.append(k)
            if n == 4:
                kk = k
                while kk:
                    low = kk & -kk
                    kk ^= low
                    out.append(k ^ low)
    for s in range(4):
        lane = (m >> (16 * s)) & LANE_MASK
        for lo, hi in RUN_BLOCKS[lane]:
            for a in range(lo, hi - 1):
                for b in range(a + 2, hi + 1):
                    out.append((((1 << (b - a + 1)) - 1) << a) << (16 * s))
    out.sort()
    return out
