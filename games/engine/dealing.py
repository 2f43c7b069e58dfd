"""Dealing: a new game, and each hand's cards from the seed (or from explicit deals)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from .cards import Card, shuffled_deck
from .errors import EngineError, InvalidCardError
from .events import Event, Visibility
from .modes import Mode, get_mode
from .phases import Deal, Phase
from .state import GameState, emit

__all__ = ["new_game", "deal_hand"]

SEAT = Visibility.SEAT


def new_game(
    mode: str | Mode = "classic",
    seed: int = 0,
    num_players: int = 2,
    *,
    settings: dict[str, Any] | None = None,
    dealer: int | None = None,
    deals: Sequence[Deal | dict[str, Any]] | None = None,
) -> GameState:
    """Start a game. Hands are dealt from the seed (hand ``n`` from ``Random(f"{seed}:{n}")``).

    ``settings`` overrides the mode's numbers; ``dealer`` fixes the first dealer (otherwise it
    is drawn from the seed); ``deals`` gives explicit deals for the first hands (tests).
    """
    m = get_mode(mode, **(settings or {}))
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise EngineError("seed must be an int")
    if not m.min_players <= num_players <= m.max_players:
        raise EngineError(
            f"mode {m.name!r} is for {m.min_players}-{m.max_players} players, not {num_players}"
        )
    s = object.__new__(GameState)
    s.mode = m
    s.seed = seed
    s.num_players = num_players
    s.deals = tuple(Deal.from_dict(x) for x in (deals or ()))
    if dealer is None:
        dealer = random.Random(f"{seed}:dealer").randrange(num_players)
    elif not 0 <= dealer < num_players:
        raise EngineError(f"dealer must be a seat 0..{num_players - 1}")
    s.hand_number = 0
    s.dealer = dealer
    s.phase = Phase.DRAW
    s.turn = 0
    s.hands = [[] for _ in range(num_players)]
    s.stock = []
    s.discard = []
    s.face_down = []
    s.taken = None
    s.stock_only = False
    s.known = [[] for _ in range(num_players)]
    s.upcard = None
    s.knock_limit = 0
    s.multiplier = 1
    s.passes = 0
    s.table = []
    s.showdown = None
    s.reshuffles = 0
    s.placed = [False] * num_players
    s.placed_this_turn = False
    s.columns = [
        {"points": [0] * num_players, "wins": [0] * num_players, "over": False, "drawn": False}
        for _ in range(m.columns)
    ]
    s.wins = [0] * num_players
    s.hand_results = []
    s.result = None
    s.actions_played = 0
    s.first_dealer = dealer
    s._moves = []
    s._moves_len = 0
    s._hist = []
    s._hist_len = 0
    s._hand_hist_start = 0
    s._drawn = ()
    s._compact = False
    events: list[Event] = []
    deal_hand(s, events)
    return s


def _deck_for_hand(s: GameState) -> tuple[list[list[Card]], Card, list[Card]]:
    n = s.num_players
    size = s.mode.hand_size_for(n)
    rng = random.Random(f"{s.seed}:{s.hand_number}")
    idx = s.hand_number - 1
    if idx < len(s.deals):
        deal = s.deals[idx]
        if len(deal.hands) != n:
            raise EngineError(
                f"deal for hand {s.hand_number} has {len(deal.hands)} hands, need {n}"
            )
        hands = [[Card.parse(c) for c in h] for h in deal.hands]
        for seat, h in enumerate(hands):
            if len(h) != size:
                raise EngineError(f"deal for hand {s.hand_number}: seat {seat} needs {size} cards")
        upcard = Card.parse(deal.upcard)
        top = [Card.parse(c) for c in deal.stock]
        named = [c for h in hands for c in h] + [upcard] + top
        if len(set(named)) != len(named):
            raise InvalidCardError(f"deal for hand {s.hand_number} names a card twice")
        rest = [c for c in shuffled_deck(rng) if c not in set(named)]
        stock_top_first = top + rest
        return hands, upcard, list(reversed(stock_top_first))
    deck = shuffled_deck(rng)
    hands = [[] for _ in range(n)]
    order = [(s.dealer + 1 + i) % n for i in range(n)]
    for j in range(n * size):
        hands[order[j % n]].append(deck[j])
    upcard = deck[n * size]
    stock = deck[n * size + 1 :]
    stock.reverse()
    return hands, upcard, stock


def deal_hand(s: GameState, events: list[Event]) -> None:
    """Deal the next hand: fresh piles, the upcard, and the first seat to act."""
    s.hand_number += 1
    hands, upcard, stock = _deck_for_hand(s)
    s.hands = hands
    s.stock = stock
    s.discard = [upcard]
    s.face_down = []
    s.taken = None
    s.stock_only = False
    s.known = [[] for _ in range(s.num_players)]
    s.upcard = upcard
    s.passes = 0
    s.table = []
    s.showdown = None
    s.reshuffles = 0
    s.placed = [False] * s.num_players
    s.placed_this_turn = False
    m = s.mode
    s.knock_limit = m.hand_knock_limit(upcard)
    s.multiplier = m.hand_multiplier(upcard)
    s.phase = Phase.OFFER if m.offers_upcard else Phase.DRAW
    s.turn = (s.dealer + 1) % s.num_players
    s._hand_hist_start = s._hist_len
    s._drawn = ()
    ev = Event(
        "deal",
        {
            "hand": s.hand_number,
            "dealer": s.dealer,
            "upcard": upcard.text,
            "stock": len(stock),
            "hand_sizes": [len(h) for h in hands],
            "knock_limit": s.knock_limit if m.has_knock_limit else None,
            "multiplier": s.multiplier,
            "to_act": s.turn,
        },
    )
    emit(s, events, ev)
    for seat, h in enumerate(hands):
        events.append(
            Event("hand", {"seat": seat, "cards": [c.text for c in sorted(h)]}, SEAT, seat)
        )
