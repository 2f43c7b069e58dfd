"""What a turn does in every family: draw from a pile, check and remove a hand's cards."""

from __future__ import annotations

from collections.abc import Callable

from .actions import Action, ActionKind
from .cards import Card, cards_of
from .errors import (
    CannotDiscardTakenCardError,
    CardNotInHandError,
    EmptyPileError,
    InvalidActionError,
    InvalidLayoffError,
    WrongPhaseError,
)
from .events import Event, Visibility
from .meld import attach_mask
from .phases import Phase
from .state import GameState, emit

__all__ = [
    "Handler",
    "action_card",
    "missing_card",
    "draw",
    "need_card",
    "remove_card",
    "check_discard",
    "layoff_meld",
    "lay_off",
    "discard_card",
    "meld_text",
]

SEAT = Visibility.SEAT

# One rule of a family: play the action on the state (apply's copy), adding its events.
Handler = Callable[[GameState, Action, list[Event]], None]


def draw(s: GameState, act: Action, events: list[Event], next_phase: Phase) -> None:
    """Draw from the stock or the discard pile (``act``), then go on to ``next_phase``."""
    seat = s.turn
    if act.kind == ActionKind.DRAW_STOCK:
        if not s.stock:
            raise EmptyPileError("the stock is empty")
        card = s.stock.pop()
        s.hands[seat].append(card)
        s.taken = None
        s.stock_only = False
        emit(s, events, Event("draw", {"seat": seat, "source": "stock", "stock": len(s.stock)}))
        s.note_stock_draw(seat, card)
        events.append(Event("drew", {"seat": seat, "card": card.text}, SEAT, seat))
    else:
        if s.stock_only:
            raise WrongPhaseError(
                "both players passed the upcard: the non-dealer must draw from the stock"
            )
        if not s.discard:
            raise EmptyPileError("the discard pile is empty")
        card = s.discard.pop()
        s.hands[seat].append(card)
        s.taken = card
        s.known[seat].append(card)
        emit(s, events, Event("draw", {"seat": seat, "source": "discard", "card": card.text}))
    s.phase = next_phase


def action_card(act: Action) -> Card:
    """The card an action names (every text form of a one-card action has one; an ``Action``
    built in code without it is refused like bad text)."""
    if act.card is None:
        raise missing_card(act)
    return act.card


def missing_card(act: Action) -> InvalidActionError:
    """The error for a one-card action without its card (hot paths check inline)."""
    return InvalidActionError(f"{act.kind} needs a card")


def need_card(s: GameState, seat: int, card: Card) -> None:
    if card not in s.hands[seat]:
        raise CardNotInHandError(f"{card} is not in seat {seat}'s hand")


def remove_card(s: GameState, seat: int, card: Card) -> None:
    """Take ``card`` out of the seat's hand (and out of its publicly known cards)."""
    s.hands[seat].remove(card)
    if card in s.known[seat]:
        s.known[seat].remove(card)


def check_discard(s: GameState, seat: int, card: Card) -> None:
    """``card`` may leave the hand face up: held, and not just taken from the discard pile."""
    need_card(s, seat, card)
    if card is s.taken:
        raise CannotDiscardTakenCardError(
            f"{card} was just taken from the discard pile and may not be discarded this turn"
        )


def layoff_meld(s: GameState, seat: int, card: Card, i: int | None) -> tuple[int, int]:
    """The table meld ``i`` that ``card`` (held by ``seat``) may be laid off onto, as its
    index and its mask; both families' lay-offs check this first."""
    need_card(s, seat, card)
    if i is None or i >= len(s.table):
        raise InvalidLayoffError(f"there is no meld {i} on the table (0..{len(s.table) - 1})")
    kind, mm = s.table[i]
    if not attach_mask(kind, mm) & card.bit:
        raise InvalidLayoffError(f"{card} cannot be laid off onto meld {i} ({meld_text(mm)})")
    return i, mm


def lay_off(s: GameState, seat: int, card: Card, i: int, events: list[Event]) -> None:
    """Move ``card`` from the seat's hand onto table meld ``i`` (checked by ``layoff_meld``)."""
    remove_card(s, seat, card)
    s.table[i][1] |= card.bit
    emit(s, events, Event("layoff", {"seat": seat, "card": card.text, "meld": i}))


def discard_card(s: GameState, seat: int, card: Card, events: list[Event]) -> None:
    """Move ``card`` from the seat's hand onto the discard pile (checked by ``check_discard``)."""
    remove_card(s, seat, card)
    s.discard.append(card)
    s.taken = None
    emit(s, events, Event("discard", {"seat": seat, "card": card.text}))


def meld_text(mm: int) -> str:
    return ",".join(c.text for c in cards_of(mm))
