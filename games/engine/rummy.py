"""Basic Rummy rules (2-4 players): one handler per phase and action.

``RULES[phase][action kind]`` plays one action on a copy of the state. The phases: DRAW,
then PLAY (meld, lay off, then discard, or go out with the last card).
"""

from __future__ import annotations

import random

from .actions import Action, ActionKind
from .cards import FULL_MASK, LANE_MASK, mask_of
from .errors import IllegalActionError, IllegalMeldError, MustGoOutError
from .events import Event
from .layoffs import layoff_closure
from .meld import MELDS
from .modes import rummy_mode
from .phases import Phase
from .scoring import score_out, score_stalemate
from .state import GameState, emit
from .turn import (
    Handler,
    action_card,
    check_discard,
    discard_card,
    draw,
    lay_off,
    layoff_meld,
    meld_text,
    missing_card,
    need_card,
    remove_card,
)

__all__ = ["RULES"]

K = ActionKind


# ---------------------------------------------------------------------------- DRAW


def _draw(s: GameState, act: Action, events: list[Event]) -> None:
    draw(s, act, events, Phase.PLAY)
    s.placed_this_turn = False


# ---------------------------------------------------------------------------- PLAY


def _meld(s: GameState, act: Action, events: list[Event]) -> None:
    seat = s.turn
    for c in act.cards:
        need_card(s, seat, c)
    mm = mask_of(act.cards)
    meld = MELDS.get(mm)
    if meld is None:
        raise IllegalMeldError(f"{meld_text(mm)} is not a set or a run")
    _check_strand(s, seat, len(act.cards), mm)
    for c in act.cards:
        remove_card(s, seat, c)
    s.table.append([meld.kind, mm])
    s.placed_this_turn = True
    emit(
        s,
        events,
        Event("meld", {"seat": seat, "cards": meld.to_list(), "index": len(s.table) - 1}),
    )
    if not s.hands[seat]:
        score_out(s, seat, events, None)


def _layoff(s: GameState, act: Action, events: list[Event]) -> None:
    seat = s.turn
    card = action_card(act)
    i, _mm = layoff_meld(s, seat, card, act.target)
    _check_strand(s, seat, 1, card.bit)
    lay_off(s, seat, card, i, events)
    s.placed_this_turn = True
    if not s.hands[seat]:
        score_out(s, seat, events, None)


def _discard(s: GameState, act: Action, events: list[Event]) -> None:
    seat = s.turn
    card = act.card
    if card is None:
        raise missing_card(act)
    check_discard(s, seat, card)
    if len(s.hands[seat]) == 1:
        raise MustGoOutError(f"{card} is your last card: play go_out:{card} to go out")
    discard_card(s, seat, card, events)
    s.placed[seat] = s.placed[seat] or s.placed_this_turn
    s.placed_this_turn = False
    s.turn = (seat + 1) % s.num_players
    s.phase = Phase.DRAW
    _start_turn(s, events)


def _go_out(s: GameState, act: Action, events: list[Event]) -> None:
    seat = s.turn
    card = action_card(act)
    check_discard(s, seat, card)
    hand = s.hands[seat]
    if len(hand) != 1:
        raise IllegalActionError(f"go_out needs exactly one card left, you hold {len(hand)}")
    remove_card(s, seat, card)
    s.face_down = [card]
    score_out(s, seat, events, card)


def _check_strand(s: GameState, seat: int, n: int, mm: int) -> None:
    """Placing ``n`` cards (mask ``mm``) may not leave only the card just taken."""
    hand = s.hands[seat]
    if len(hand) - n == 1 and s.taken is not None:
        left = mask_of(hand) ^ mm
        if left == s.taken.bit:
            raise MustGoOutError(
                f"that would leave only {s.taken}, which was just taken from the discard pile "
                "and cannot be discarded this turn"
            )


# ---------------------------------------------------------------------------- next turn


def _start_turn(s: GameState, events: list[Event]) -> None:
    """Before the next seat draws: a hopeless hand ends; an empty stock is reshuffled once."""
    if _hopeless(s):
        score_stalemate(s, events, "no player can ever go out")
        return
    if s.stock:
        return
    mode = rummy_mode(s.mode)
    if s.reshuffles >= mode.reshuffles:
        score_stalemate(s, events, "the stock ran out a second time")
        return
    if len(s.discard) < 2:
        score_stalemate(s, events, "the stock ran out with no discard pile to reshuffle")
        return
    top = s.discard.pop()
    pile = s.discard
    rng = random.Random(f"{s.seed}:{s.hand_number}:reshuffle:{s.reshuffles}")
    rng.shuffle(pile)
    s.stock = pile
    s.discard = [top]
    s.reshuffles += 1
    emit(s, events, Event("reshuffle", {"stock": len(s.stock), "top": top.text}))


def _hopeless(s: GameState) -> bool:
    """Provably nobody can ever meld or lay off again (so nobody can go out)."""
    on_table = 0
    for _, mm in s.table:
        on_table |= mm
    out = FULL_MASK ^ on_table
    if out & (out >> 1) & (out >> 2):
        return False
    a = out & LANE_MASK
    b = (out >> 16) & LANE_MASK
    c = (out >> 32) & LANE_MASK
    d = out >> 48
    if (a & b & (c | d)) | (c & d & (a | b)):
        return False
    laid, _, _ = layoff_closure([(k, mm) for k, mm in s.table], out)
    return laid == 0


RULES: dict[Phase, dict[str, Handler]] = {
    Phase.DRAW: {K.DRAW_STOCK: _draw, K.DRAW_DISCARD: _draw},
    Phase.PLAY: {K.MELD: _meld, K.LAYOFF: _layoff, K.DISCARD: _discard, K.GO_OUT: _go_out},
}
