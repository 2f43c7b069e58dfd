"""Gin rules (Classic, Straight, Oklahoma, Hollywood): one handler per phase and action.

``RULES[phase][action kind]`` plays one action on a copy of the state. The phases: OFFER
(the upcard is offered), DRAW, DISCARD (discard, knock, gin or big gin) and LAYOFF (the
defender lays off onto the knocker's melds); a knock or gin starts the showdown.
"""

from __future__ import annotations

from .actions import Action, ActionKind
from .cards import Card, mask_of
from .errors import (
    IllegalActionError,
    IllegalMeldError,
    InvalidMeldError,
    KnockTooHighError,
    NotGinError,
)
from .events import Event
from .layoffs import best_layoffs
from .meld import MELDS, attach_mask
from .meld_search import MeldResult, best_melds, deadwood_of_mask
from .modes import GinMode, gin_mode
from .phases import Phase, Showdown
from .scoring import score_drawn, score_gin, score_knock
from .state import GameState, emit
from .turn import (
    Handler,
    action_card,
    check_discard,
    discard_card,
    draw,
    lay_off,
    layoff_meld,
    missing_card,
    remove_card,
)

__all__ = ["RULES"]

K = ActionKind


# ---------------------------------------------------------------------------- OFFER


def _take_upcard(s: GameState, act: Action, events: list[Event]) -> None:
    seat = s.turn
    card = s.discard.pop()
    s.hands[seat].append(card)
    s.taken = card
    s.known[seat].append(card)
    s.phase = Phase.DISCARD
    emit(s, events, Event("take_upcard", {"seat": seat, "card": card.text}))


def _pass(s: GameState, act: Action, events: list[Event]) -> None:
    seat = s.turn
    s.passes += 1
    emit(s, events, Event("pass", {"seat": seat}))
    if s.passes == 1:
        s.turn = 1 - seat
    else:
        s.turn = 1 - s.dealer
        s.phase = Phase.DRAW
        s.stock_only = True


# ---------------------------------------------------------------------------- DRAW


def _draw(s: GameState, act: Action, events: list[Event]) -> None:
    draw(s, act, events, Phase.DISCARD)


# ---------------------------------------------------------------------------- DISCARD


def _discard(s: GameState, act: Action, events: list[Event]) -> None:
    seat = s.turn
    card = act.card
    if card is None:
        raise missing_card(act)
    check_discard(s, seat, card)
    discard_card(s, seat, card, events)
    mode = s.mode
    if isinstance(mode, GinMode) and len(s.stock) <= mode.drawn_hand_stock:
        score_drawn(s, events)
    else:
        s.turn = 1 - seat
        s.phase = Phase.DRAW


def _knock_or_gin(s: GameState, act: Action, events: list[Event]) -> None:
    """``knock:C`` / ``gin:C``, optionally with the arrangement to show (``|melds``)."""
    seat = s.turn
    k = act.kind
    card = action_card(act)
    check_discard(s, seat, card)
    m = mask_of(s.hands[seat]) ^ card.bit
    arrangement = None
    if act.melds:
        try:
            arrangement = MeldResult.from_melds(m, act.melds)
        except InvalidMeldError as exc:
            raise IllegalMeldError(f"arrangement not possible: {exc}") from None
        dw = arrangement.deadwood
        if dw and k == K.KNOCK and deadwood_of_mask(m) == 0:
            # Gin is decided by the cards, not by what is shown: ten cards that can all be
            # melded are gin (no lay-offs, never undercut), so the knocker's best
            # arrangement is used whatever arrangement was sent.
            remove_card(s, seat, card)
            s.face_down = [card]
            _showdown(s, seat, card, m, gin=True, events=events)
            return
    else:
        dw = deadwood_of_mask(m)
    if k == K.GIN:
        if dw:
            raise NotGinError(f"without {card} the hand still has {dw} deadwood: not gin")
    else:
        if s.knock_limit == 0:
            why = (
                "this mode does not allow knocking"
                if not gin_mode(s.mode).knocking
                else ("the upcard was an ace: only gin ends this hand")
            )
            raise KnockTooHighError(f"knocking is not allowed in this hand ({why}); only gin")
        if dw == 0:
            raise IllegalActionError(f"without {card} the hand has no deadwood: send gin:{card}")
        if dw > s.knock_limit:
            raise KnockTooHighError(
                f"deadwood {dw} after discarding {card} is above the knock limit {s.knock_limit}"
            )
    remove_card(s, seat, card)
    s.face_down = [card]
    _showdown(s, seat, card, m, gin=(k == K.GIN), events=events, shown=arrangement)


def _big_gin(s: GameState, act: Action, events: list[Event]) -> None:
    if not gin_mode(s.mode).big_gin:
        raise NotGinError("big gin is not played in this mode")
    seat = s.turn
    m = mask_of(s.hands[seat])
    dw = deadwood_of_mask(m)
    if dw:
        raise NotGinError(f"the eleven cards have {dw} deadwood: not big gin")
    _showdown(s, seat, None, m, gin=True, events=events, big=True)


def _showdown(
    s: GameState,
    seat: int,
    card: Card | None,
    m: int,
    *,
    gin: bool,
    events: list[Event],
    big: bool = False,
    shown: MeldResult | None = None,
) -> None:
    """The knocker shows ``m`` (best melds unless ``shown``); gin scores at once, a knock
    waits for the defender's lay-offs when there are any to make."""
    res = shown if shown is not None else best_melds(m)
    defender = 1 - seat
    sd = Showdown(
        knocker=seat,
        defender=defender,
        kind="big_gin" if big else ("gin" if gin else "knock"),
        knock_card=card.text if card else None,
        knocker_melds=[mm.to_list() for mm in res.melds],
        knocker_deadwood_cards=[c.text for c in res.deadwood_cards],
        knocker_deadwood=res.deadwood,
        layoffs=[],
    )
    s.showdown = sd
    # the knocker's melds go on the table; the deadwood stays in hand (shown)
    s.table = [[mm.kind, mm.mask] for mm in res.melds]
    s.hands[seat] = [c for c in s.hands[seat] if not res.melded_mask & c.bit]
    s.known[seat] = [c for c in s.known[seat] if c in s.hands[seat]]
    s.taken = None
    emit(
        s,
        events,
        Event(
            sd.kind,
            {
                "seat": seat,
                "melds": sd.knocker_melds,
                "deadwood_cards": sd.knocker_deadwood_cards,
                "deadwood": res.deadwood,
            },
        ),
    )
    if gin:
        score_gin(s, events, big)
    elif not _any_layoff(s, defender):
        score_knock(s, events)
    else:
        s.phase = Phase.LAYOFF
        s.turn = defender


# ---------------------------------------------------------------------------- LAYOFF


def _layoff(s: GameState, act: Action, events: list[Event]) -> None:
    seat = s.turn
    card = action_card(act)
    i, _mm = layoff_meld(s, seat, card, act.target)
    assert s.showdown is not None  # the LAYOFF phase is a showdown's
    lay_off(s, seat, card, i, events)
    s.showdown.layoffs.append([card.text, i])
    if not _any_layoff(s, seat):
        score_knock(s, events)


def _accept_layoffs(s: GameState, act: Action, events: list[Event]) -> None:
    seat = s.turn
    res = best_layoffs(mask_of(s.hands[seat]), [MELDS[mm] for _, mm in s.table])
    assert s.showdown is not None  # lay-offs are made only in a showdown
    for card, i in res.layoffs:
        lay_off(s, seat, card, i, events)
        s.showdown.layoffs.append([card.text, i])
    score_knock(s, events)


def _done(s: GameState, act: Action, events: list[Event]) -> None:
    score_knock(s, events)


def _any_layoff(s: GameState, seat: int) -> bool:
    hm = mask_of(s.hands[seat])
    for kind, mm in s.table:
        if attach_mask(kind, mm) & hm:
            return True
    return False


RULES: dict[Phase, dict[str, Handler]] = {
    Phase.OFFER: {K.TAKE_UPCARD: _take_upcard, K.PASS: _pass},
    Phase.DRAW: {K.DRAW_STOCK: _draw, K.DRAW_DISCARD: _draw},
    Phase.DISCARD: {
        K.DISCARD: _discard,
        K.KNOCK: _knock_or_gin,
        K.GIN: _knock_or_gin,
        K.BIG_GIN: _big_gin,
    },
    Phase.LAYOFF: {K.LAYOFF: _layoff, K.ACCEPT_LAYOFFS: _accept_layoffs, K.DONE: _done},
}
