"""Game states: a whole game (every hand up to the target) as one state machine.

``legal_actions(state)`` is the single source of legality, ``apply(state, action, seat=)``
returns ``(new_state, events)`` and never mutates its input; an illegal action raises a
specific ``IllegalActionError`` and changes nothing.

>>> s = new_game("classic", seed=7)
>>> s.phase, s.to_act in (0, 1), len(legal_actions(s))
(<Phase.OFFER: 'offer'>, True, 2)
>>> s2, events = apply(s, "pass", seat=s.to_act)
>>> s2.hand_number, s.passes, s2.passes
(1, 0, 1)
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, NamedTuple

from .actions import Action, ActionKind
from .cards import BY_BIT, FULL_MASK, LANE_MASK, RANK_ALL, Card, cards_of, mask_of, shuffled_deck
from .errors import (
    CannotDiscardTakenCardError,
    CardNotInHandError,
    EmptyPileError,
    EngineError,
    GameOverError,
    IllegalActionError,
    IllegalMeldError,
    InvalidCardError,
    InvalidLayoffError,
    InvalidMeldError,
    KnockTooHighError,
    MustGoOutError,
    NotGinError,
    NotYourTurnError,
    WrongPhaseError,
)
from .events import Event, Visibility
from .melds import (
    _MELDS,
    _RUN_BLOCKS,
    MeldResult,
    attach_mask,
    best_layoffs,
    best_melds,
    deadwood_of_mask,
    layoff_closure,
)
from .modes import GinMode, Mode, RummyMode, get_mode, mode_from_dict
from .results import ColumnResult, GameResult, HandOutcome, HandResult

__all__ = [
    "Phase",
    "Deal",
    "GameState",
    "ApplyResult",
    "new_game",
    "legal_actions",
    "is_legal",
    "apply",
    "view_for",
    "spectator_view",
]

K = ActionKind
PUBLIC = Visibility.PUBLIC
SEAT = Visibility.SEAT


class Phase(StrEnum):
    OFFER = "offer"  # gin: the upcard is offered (non-dealer first, then dealer)
    DRAW = "draw"  # draw from stock or discard pile
    DISCARD = "discard"  # gin: discard, knock, gin or big gin
    LAYOFF = "layoff"  # gin: the defender lays off after a knock
    PLAY = "play"  # rummy: meld, lay off, discard or go out
    OVER = "over"


@dataclass(frozen=True)
class Deal:
    """An explicit deal for tests and puzzles: each seat's cards, the upcard, the stock's top.

    ``stock`` lists the top of the stock first; cards not named anywhere follow below it in
    a seeded order.
    """

    hands: tuple[tuple[str, ...], ...]
    upcard: str
    stock: tuple[str, ...] = ()

    @classmethod
    def make(
        cls,
        hands: Sequence[Iterable[str | Card]],
        upcard: str | Card,
        stock: Iterable[str | Card] = (),
    ) -> Deal:
        return cls(
            tuple(tuple(str(Card.parse(c)) for c in h) for h in hands),
            str(Card.parse(upcard)),
            tuple(str(Card.parse(c)) for c in stock),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "hands": [list(h) for h in self.hands],
            "upcard": self.upcard,
            "stock": list(self.stock),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any] | Deal) -> Deal:
        if isinstance(d, Deal):
            return d
        return cls.make(d["hands"], d["upcard"], d.get("stock", ()))


class ApplyResult(NamedTuple):
    state: GameState
    events: tuple[Event, ...]


_FIELDS = (
    "mode",
    "seed",
    "num_players",
    "deals",
    "hand_number",
    "dealer",
    "phase",
    "turn",
    "hands",
    "stock",
    "discard",
    "face_down",
    "taken",
    "stock_only",
    "known",
    "upcard",
    "knock_limit",
    "multiplier",
    "passes",
    "table",
    "showdown",
    "reshuffles",
    "placed",
    "placed_this_turn",
    "columns",
    "wins",
    "hand_results",
    "result",
    "actions_played",
    "first_dealer",
    "_moves",
    "_moves_len",
    "_hist",
    "_hist_len",
    "_hand_hist_start",
    "_compact",
)


class GameState:
    """Everything about a game in progress. Treat as immutable: ``apply`` returns a new one."""

    __slots__ = _FIELDS

    mode: Mode
    seed: int
    num_players: int
    deals: tuple[Deal, ...]
    hand_number: int
    dealer: int
    phase: Phase
    turn: int
    hands: list[list[Card]]
    stock: list[Card]  # top of the stock is the LAST element
    discard: list[Card]  # top of the pile is the LAST element
    face_down: list[Card]  # the knocker's face-down discard during a showdown
    taken: Card | None  # card taken from the discard pile this turn (may not be discarded)
    stock_only: bool  # gin: both passed the upcard, the non-dealer must draw from stock
    known: list[list[Card]]  # per seat: cards taken from the discard pile still held (public)
    upcard: Card | None  # the hand's first upcard
    knock_limit: int
    multiplier: int
    passes: int
    table: list[list[Any]]  # [kind, mask] melds on the table (rummy; gin knocker's melds)
    showdown: dict[str, Any] | None  # gin showdown in progress
    reshuffles: int
    placed: list[bool]  # rummy: seat melded/laid off in an earlier turn of this hand
    placed_this_turn: bool
    columns: list[dict[str, Any]]  # score sheet: per column points / wins / over / drawn
    wins: list[int]  # hands won in this game per seat
    hand_results: list[HandResult]
    result: GameResult | None
    actions_played: int

    # -------------------------------------------------------------- read-only helpers
    @property
    def to_act(self) -> int | None:
        return None if self.phase is Phase.OVER else self.turn

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    @property
    def family(self) -> str:
        return self.mode.family

    @property
    def scores(self) -> list[int]:
        """Running hand points per seat (summed over Hollywood's columns), before bonuses."""
        return [sum(col["points"][s] for col in self.columns) for s in range(self.num_players)]

    @property
    def target(self) -> int:
        return self.mode.target_for(self.num_players)

    @property
    def history(self) -> list[dict[str, Any]]:
        """Every public event of the game so far (kind + data)."""
        self._require_full("history")
        return self._hist[: self._hist_len]

    @property
    def moves(self) -> list[tuple[int, str]]:
        """Every action applied so far as (seat, action text), in order."""
        self._require_full("moves")
        return self._moves[: self._moves_len]

    @property
    def is_compact(self) -> bool:
        """Loaded from ``to_dict(compact=True)``: only the current hand's history is known."""
        return self._compact

    def _require_full(self, what: str) -> None:
        if self._compact:
            raise EngineError(
                f"this state was stored compact (without the game's {what}): replay the "
                "game's moves from its seed to get them"
            )

    @property
    def hand_history(self) -> list[dict[str, Any]]:
        return self._hist[self._hand_hist_start : self._hist_len]

    def hand_of(self, seat: int) -> list[Card]:
        return sorted(self.hands[seat])

    def card_count(self) -> int:
        n = len(self.stock) + len(self.discard) + len(self.face_down)
        n += sum(len(h) for h in self.hands)
        n += sum(mm.bit_count() for _, mm in self.table)
        return n

    def all_cards_mask(self) -> int:
        m = 0
        for c in self.stock:
            m |= c.bit
        for c in self.discard:
            m |= c.bit
        for c in self.face_down:
            m |= c.bit
        for h in self.hands:
            for c in h:
                m |= c.bit
        for _, mm in self.table:
            m |= mm
        return m

    def _copy(self) -> GameState:
        new = object.__new__(GameState)
        for f in _FIELDS:
            object.__setattr__(new, f, getattr(self, f))
        new.hands = [list(h) for h in self.hands]
        new.stock = list(self.stock)
        new.discard = list(self.discard)
        new.face_down = list(self.face_down)
        new.known = [list(k) for k in self.known]
        new.table = [list(t) for t in self.table]
        new.placed = list(self.placed)
        new.columns = [
            {
                "points": list(c["points"]),
                "wins": list(c["wins"]),
                "over": c["over"],
                "drawn": c["drawn"],
            }
            for c in self.columns
        ]
        new.wins = list(self.wins)
        new.hand_results = list(self.hand_results)
        if self.showdown is not None:
            sd = dict(self.showdown)
            sd["layoffs"] = list(sd["layoffs"])
            new.showdown = sd
        return new

    def _log(self, ev: Event) -> None:
        if ev.visibility is not PUBLIC:
            return
        if len(self._hist) != self._hist_len:
            self._hist = self._hist[: self._hist_len]
        self._hist.append({"kind": ev.kind, "data": ev.data})
        self._hist_len += 1

    # -------------------------------------------------------------- serialisation
    def to_dict(self, *, compact: bool = False) -> dict[str, Any]:
        """JSON-safe snapshot of the full internal state (includes the seed and stock order).

        ``compact`` leaves out the game's move list and the public history of earlier hands
        (what grows with the game), keeping everything play, views and scoring need: a
        server that stores the state after every move and the moves elsewhere writes a few
        KB instead of the whole game each time. A state loaded from a compact dict plays on
        exactly like the full one; only ``moves`` and ``history`` refuse (replay the moves
        from the seed for those), and it dumps compact again."""
        compact = compact or self._compact
        d = {
            "version": 1,
            "mode": self.mode.to_dict(),
            "seed": self.seed,
            "num_players": self.num_players,
            "deals": [d.to_dict() for d in self.deals],
            "hand_number": self.hand_number,
            "dealer": self.dealer,
            "phase": self.phase.value,
            "turn": self.turn,
            "hands": [[c.text for c in h] for h in self.hands],
            "stock": [c.text for c in self.stock],
            "discard": [c.text for c in self.discard],
            "face_down": [c.text for c in self.face_down],
            "taken": self.taken.text if self.taken else None,
            "stock_only": self.stock_only,
            "known": [[c.text for c in k] for k in self.known],
            "upcard": self.upcard.text if self.upcard else None,
            "knock_limit": self.knock_limit,
            "multiplier": self.multiplier,
            "passes": self.passes,
            "table": [[k, [c.text for c in cards_of(mm)]] for k, mm in self.table],
            "showdown": self.showdown,
            "reshuffles": self.reshuffles,
            "placed": list(self.placed),
            "placed_this_turn": self.placed_this_turn,
            "columns": [
                {
                    "points": list(c["points"]),
                    "wins": list(c["wins"]),
                    "over": c["over"],
                    "drawn": c["drawn"],
                }
                for c in self.columns
            ],
            "wins": list(self.wins),
            "hand_results": [h.to_dict() for h in self.hand_results],
            "result": self.result.to_dict() if self.result else None,
            "actions_played": self.actions_played,
            "first_dealer": self.first_dealer,
            "moves": [] if compact else [list(m) for m in self.moves],
            "history": self.hand_history if compact else self.history,
            "hand_history_start": 0 if compact else self._hand_hist_start,
        }
        if compact:
            d["compact"] = True
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> GameState:
        try:
            s = object.__new__(cls)
            s.mode = mode_from_dict(d["mode"])
            s.seed = d["seed"]
            s.num_players = d["num_players"]
            s.deals = tuple(Deal.from_dict(x) for x in d.get("deals", []))
            s.hand_number = d["hand_number"]
            s.dealer = d["dealer"]
            s.phase = Phase(d["phase"])
            s.turn = d["turn"]
            s.hands = [[Card.parse(c) for c in h] for h in d["hands"]]
            s.stock = [Card.parse(c) for c in d["stock"]]
            s.discard = [Card.parse(c) for c in d["discard"]]
            s.face_down = [Card.parse(c) for c in d["face_down"]]
            s.taken = Card.parse(d["taken"]) if d["taken"] else None
            s.stock_only = d["stock_only"]
            s.known = [[Card.parse(c) for c in k] for k in d["known"]]
            s.upcard = Card.parse(d["upcard"]) if d["upcard"] else None
            s.knock_limit = d["knock_limit"]
            s.multiplier = d["multiplier"]
            s.passes = d["passes"]
            s.table = [[k, mask_of(cards)] for k, cards in d["table"]]
            s.showdown = d["showdown"]
            s.reshuffles = d["reshuffles"]
            s.placed = list(d["placed"])
            s.placed_this_turn = d["placed_this_turn"]
            s.columns = [
                {
                    "points": list(c["points"]),
                    "wins": list(c["wins"]),
                    "over": c["over"],
                    "drawn": c["drawn"],
                }
                for c in d["columns"]
            ]
            s.wins = list(d["wins"])
            s.hand_results = [HandResult.from_dict(h) for h in d["hand_results"]]
            s.result = GameResult.from_dict(d["result"]) if d["result"] else None
            s.actions_played = d["actions_played"]
            s.first_dealer = d["first_dealer"]
            s._moves = [(int(a), str(b)) for a, b in d["moves"]]
            s._moves_len = len(s._moves)
            s._hist = list(d["history"])
            s._hist_len = len(s._hist)
            s._hand_hist_start = d["hand_history_start"]
            s._compact = bool(d.get("compact", False))
        except (KeyError, TypeError, ValueError) as exc:
            raise EngineError(f"state dict is not valid: {exc!r}") from None
        if s.card_count() != 52 or s.all_cards_mask() != FULL_MASK:
            raise EngineError(
                "state dict is not valid: the 52 cards are not all there exactly once"
            )
        return s

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GameState) and self.to_dict() == other.to_dict()

    def __repr__(self) -> str:
        return (
            f"<GameState {self.mode.name} hand {self.hand_number} phase={self.phase.value} "
            f"to_act={self.to_act} scores={self.scores}>"
        )


# ============================================================================ creation


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
    ncols = m.columns if isinstance(m, GinMode) else 1
    s.columns = [
        {"points": [0] * num_players, "wins": [0] * num_players, "over": False, "drawn": False}
        for _ in range(ncols)
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
    s._compact = False
    events: list[Event] = []
    _deal(s, events)
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


def _deal(s: GameState, events: list[Event]) -> None:
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
    if isinstance(m, GinMode):
        s.knock_limit = m.hand_knock_limit(upcard)
        s.multiplier = m.hand_multiplier(upcard)
        s.phase = Phase.OFFER
        s.turn = 1 - s.dealer
    else:
        s.knock_limit = 0
        s.multiplier = 1
        s.phase = Phase.DRAW
        s.turn = (s.dealer + 1) % s.num_players
    s._hand_hist_start = s._hist_len
    ev = Event(
        "deal",
        {
            "hand": s.hand_number,
            "dealer": s.dealer,
            "upcard": upcard.text,
            "stock": len(stock),
            "hand_sizes": [len(h) for h in hands],
            "knock_limit": s.knock_limit if isinstance(m, GinMode) else None,
            "multiplier": s.multiplier,
            "to_act": s.turn,
        },
    )
    _emit(s, events, ev)
    for seat, h in enumerate(hands):
        events.append(
            Event("hand", {"seat": seat, "cards": [c.text for c in sorted(h)]}, SEAT, seat)
        )


def _emit(s: GameState, events: list[Event], ev: Event) -> None:
    events.append(ev)
    s._log(ev)


# ============================================================================ legality


def legal_actions(state: GameState) -> list[Action]:
    """Every legal action for the seat to act (empty only when the game is over)."""
    ph = state.phase
    if ph is Phase.OVER:
        return []
    seat = state.turn
    hand = state.hands[seat]
    taken = state.taken
    if ph is Phase.OFFER:
        return [_A(K.TAKE_UPCARD), _A(K.PASS)]
    if ph is Phase.DRAW:
        out = []
        if state.stock:
            out.append(_A(K.DRAW_STOCK))
        if state.discard and not state.stock_only:
            out.append(_A(K.DRAW_DISCARD))
        return out
    if ph is Phase.DISCARD:
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
        mode = state.mode
        if isinstance(mode, GinMode) and mode.big_gin and deadwood_of_mask(m) == 0:
            out.append(_A(K.BIG_GIN))
        return out
    if ph is Phase.LAYOFF:
        out = []
        for c in sorted(hand):
            for i, (kind, mm) in enumerate(state.table):
                if attach_mask(kind, mm) & c.bit:
                    out.append(Action(K.LAYOFF, c, target=i))
        out.append(_A(K.ACCEPT_LAYOFFS))
        out.append(_A(K.DONE))
        return out
    # rummy PLAY
    out = []
    m = 0
    for c in hand:
        m |= c.bit
    n = len(hand)
    tb = taken.bit if taken is not None else 0
    for mm in _possible_melds(m):
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


def _A(text: str) -> Action:
    return Action.parse(text)


def is_legal(state: GameState, action: str | Action, seat: int | None = None) -> bool:
    """Agrees with ``legal_actions`` (and with whether ``apply`` would raise)."""
    try:
        act = Action.parse(action)
    except EngineError:
        return False
    if state.phase is Phase.OVER:
        return False
    if seat is not None and seat != state.turn:
        return False
    if act.melds:  # an explicit knock arrangement: legal exactly when it applies
        try:
            apply(state, act, seat=seat)
        except IllegalActionError:
            return False
        return True
    return act in legal_actions(state)


def _possible_melds(m: int) -> list[int]:
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
        for lo, hi in _RUN_BLOCKS[lane]:
            for a in range(lo, hi - 1):
                for b in range(a + 2, hi + 1):
                    out.append((((1 << (b - a + 1)) - 1) << a) << (16 * s))
    out.sort()
    return out


# ============================================================================ apply


def apply(state: GameState, action: str | Action, seat: int | None = None) -> ApplyResult:
    """Play ``action`` for ``seat`` (default: the seat to act). Returns (new_state, events).

    Raises ``InvalidActionError`` for unparseable text and an ``IllegalActionError`` subclass
    for a rule violation; the input state is never modified.
    """
    act = Action.parse(action)
    if state.phase is Phase.OVER:
        raise GameOverError("the game is over")
    if seat is not None and seat != state.turn:
        raise NotYourTurnError(f"it is seat {state.turn}'s turn, not seat {seat}'s")
    new = state._copy()
    events: list[Event] = []
    if isinstance(state.mode, GinMode):
        _apply_gin(new, act, events)
    else:
        _apply_rummy(new, act, events)
    new.actions_played += 1
    if len(new._moves) != new._moves_len:
        new._moves = new._moves[: new._moves_len]
    new._moves.append((state.turn, str(act)))
    new._moves_len += 1
    return ApplyResult(new, tuple(events))


def _wrong_phase(s: GameState, act: Action) -> IllegalActionError:
    allowed = sorted({a.kind for a in legal_actions(s)})
    return WrongPhaseError(
        f"{act} is not allowed in phase {s.phase.value!r}; allowed here: {', '.join(allowed)}"
    )


def _need_card(s: GameState, seat: int, card: Card) -> None:
    if card not in s.hands[seat]:
        raise CardNotInHandError(f"{card} is not in seat {seat}'s hand")


def _draw(s: GameState, act: Action, events: list[Event], next_phase: Phase) -> None:
    seat = s.turn
    if act.kind == K.DRAW_STOCK:
        if not s.stock:
            raise EmptyPileError("the stock is empty")
        card = s.stock.pop()
        s.hands[seat].append(card)
        s.taken = None
        s.stock_only = False
        _emit(s, events, Event("draw", {"seat": seat, "source": "stock", "stock": len(s.stock)}))
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
        _emit(s, events, Event("draw", {"seat": seat, "source": "discard", "card": card.text}))
    s.phase = next_phase


def _remove(s: GameState, seat: int, card: Card) -> None:
    s.hands[seat].remove(card)
    if card in s.known[seat]:
        s.known[seat].remove(card)


def _check_discard(s: GameState, seat: int, card: Card) -> None:
    _need_card(s, seat, card)
    if card is s.taken:
        raise CannotDiscardTakenCardError(
            f"{card} was just taken from the discard pile and may not be discarded this turn"
        )


# ---------------------------------------------------------------------------- gin


def _apply_gin(s: GameState, act: Action, events: list[Event]) -> None:
    seat = s.turn
    ph = s.phase
    k = act.kind
    if ph is Phase.OFFER:
        if k == K.TAKE_UPCARD:
            card = s.discard.pop()
            s.hands[seat].append(card)
            s.taken = card
            s.known[seat].append(card)
            s.phase = Phase.DISCARD
            _emit(s, events, Event("take_upcard", {"seat": seat, "card": card.text}))
        elif k == K.PASS:
            s.passes += 1
            _emit(s, events, Event("pass", {"seat": seat}))
            if s.passes == 1:
                s.turn = 1 - seat
            else:
                s.turn = 1 - s.dealer
                s.phase = Phase.DRAW
                s.stock_only = True
        else:
            raise _wrong_phase(s, act)
        return
    if ph is Phase.DRAW:
        if k not in (K.DRAW_STOCK, K.DRAW_DISCARD):
            raise _wrong_phase(s, act)
        _draw(s, act, events, Phase.DISCARD)
        return
    if ph is Phase.DISCARD:
        if k == K.DISCARD:
            card = act.card
            _check_discard(s, seat, card)
            _remove(s, seat, card)
            s.discard.append(card)
            s.taken = None
            _emit(s, events, Event("discard", {"seat": seat, "card": card.text}))
            if len(s.stock) <= s.mode.drawn_hand_stock:
                _gin_finish_drawn(s, events)
            else:
                s.turn = 1 - seat
                s.phase = Phase.DRAW
            return
        if k in (K.KNOCK, K.GIN):
            card = act.card
            _check_discard(s, seat, card)
            m = mask_of(s.hands[seat]) ^ card.bit
            arrangement = None
            if act.melds:
                try:
                    arrangement = MeldResult.from_melds(m, act.melds)
                except InvalidMeldError as exc:
                    raise IllegalMeldError(f"arrangement not possible: {exc}") from None
                dw = arrangement.deadwood
                if dw and k == K.KNOCK and deadwood_of_mask(m) == 0:
                    # Gin is decided by the cards, not by what is shown: ten cards that can
                    # all be melded are gin (no lay-offs, never undercut), so the knocker's
                    # best arrangement is used whatever arrangement was sent.
                    _remove(s, seat, card)
                    s.face_down = [card]
                    _gin_showdown(s, seat, card, m, gin=True, events=events)
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
                        if not s.mode.knocking
                        else ("the upcard was an ace: only gin ends this hand")
                    )
                    raise KnockTooHighError(
                        f"knocking is not allowed in this hand ({why}); only gin"
                    )
                if dw == 0:
                    raise IllegalActionError(
                        f"without {card} the hand has no deadwood: send gin:{card}"
                    )
                if dw > s.knock_limit:
                    raise KnockTooHighError(
                        f"deadwood {dw} after discarding {card} is above the knock limit "
                        f"{s.knock_limit}"
                    )
            _remove(s, seat, card)
            s.face_down = [card]
            _gin_showdown(s, seat, card, m, gin=(k == K.GIN), events=events, shown=arrangement)
            return
        if k == K.BIG_GIN:
            if not s.mode.big_gin:
                raise NotGinError("big gin is not played in this mode")
            m = mask_of(s.hands[seat])
            dw = deadwood_of_mask(m)
            if dw:
                raise NotGinError(f"the eleven cards have {dw} deadwood: not big gin")
            _gin_showdown(s, seat, None, m, gin=True, events=events, big=True)
            return
        raise _wrong_phase(s, act)
    if ph is Phase.LAYOFF:
        if k == K.LAYOFF:
            card = act.card
            _need_card(s, seat, card)
            i = act.target
            if i is None or i >= len(s.table):
                raise InvalidLayoffError(
                    f"there is no meld {i} on the table (0..{len(s.table) - 1})"
                )
            kind, mm = s.table[i]
            if not attach_mask(kind, mm) & card.bit:
                raise InvalidLayoffError(
                    f"{card} cannot be laid off onto meld {i} ({_meld_text(mm)})"
                )
            _remove(s, seat, card)
            s.table[i][1] = mm | card.bit
            s.showdown["layoffs"].append([card.text, i])
            _emit(s, events, Event("layoff", {"seat": seat, "card": card.text, "meld": i}))
            if not _any_layoff(s, seat):
                _gin_finish_knock(s, events)
            return
        if k == K.ACCEPT_LAYOFFS:
            res = best_layoffs(mask_of(s.hands[seat]), [_MELDS[mm] for _, mm in s.table])
            for card, i in res.layoffs:
                _remove(s, seat, card)
                s.table[i][1] |= card.bit
                s.showdown["layoffs"].append([card.text, i])
                _emit(s, events, Event("layoff", {"seat": seat, "card": card.text, "meld": i}))
            _gin_finish_knock(s, events)
            return
        if k == K.DONE:
            _gin_finish_knock(s, events)
            return
        raise _wrong_phase(s, act)
    raise _wrong_phase(s, act)


def _meld_text(mm: int) -> str:
    return ",".join(c.text for c in cards_of(mm))


def _any_layoff(s: GameState, seat: int) -> bool:
    hm = mask_of(s.hands[seat])
    for kind, mm in s.table:
        if attach_mask(kind, mm) & hm:
            return True
    return False


def _gin_showdown(
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
    res = shown if shown is not None else best_melds(m)
    defender = 1 - seat
    s.showdown = {
        "knocker": seat,
        "defender": defender,
        "kind": "big_gin" if big else ("gin" if gin else "knock"),
        "knock_card": card.text if card else None,
        "knocker_melds": [mm.to_list() for mm in res.melds],
        "knocker_deadwood_cards": [c.text for c in res.deadwood_cards],
        "knocker_deadwood": res.deadwood,
        "layoffs": [],
    }
    # the knocker's melds go on the table; the deadwood stays in hand (shown)
    s.table = [[mm.kind, mm.mask] for mm in res.melds]
    s.hands[seat] = [c for c in s.hands[seat] if not res.melded_mask & c.bit]
    s.known[seat] = [c for c in s.known[seat] if c in s.hands[seat]]
    s.taken = None
    _emit(
        s,
        events,
        Event(
            s.showdown["kind"],
            {
                "seat": seat,
                "melds": s.showdown["knocker_melds"],
                "deadwood_cards": s.showdown["knocker_deadwood_cards"],
                "deadwood": res.deadwood,
            },
        ),
    )
    if gin:
        _gin_finish_gin(s, events, big)
    elif not _any_layoff(s, defender):
        _gin_finish_knock(s, events)
    else:
        s.phase = Phase.LAYOFF
        s.turn = defender


def _gin_finish_gin(s: GameState, events: list[Event], big: bool) -> None:
    sd = s.showdown
    d = sd["defender"]
    own = best_melds(mask_of(s.hands[d]))
    mode: GinMode = s.mode  # type: ignore[assignment]
    bonus = mode.big_gin_bonus if big else mode.gin_bonus
    base = bonus + own.deadwood
    _gin_end_hand(
        s,
        events,
        outcome=HandOutcome.BIG_GIN if big else HandOutcome.GIN,
        winner=sd["knocker"],
        base=base,
        own=own,
    )


def _gin_finish_knock(s: GameState, events: list[Event]) -> None:
    sd = s.showdown
    d = sd["defender"]
    own = best_melds(mask_of(s.hands[d]))
    kdw = sd["knocker_deadwood"]
    mode: GinMode = s.mode  # type: ignore[assignment]
    if own.deadwood <= kdw:
        outcome = HandOutcome.UNDERCUT
        winner = d
        base = mode.undercut_bonus + (kdw - own.deadwood)
    else:
        outcome = HandOutcome.KNOCK
        winner = sd["knocker"]
        base = own.deadwood - kdw
    _gin_end_hand(s, events, outcome=outcome, winner=winner, base=base, own=own)


def _gin_end_hand(
    s: GameState, events: list[Event], *, outcome: HandOutcome, winner: int, base: int, own
) -> None:
    sd = s.showdown
    mode: GinMode = s.mode  # type: ignore[assignment]
    points = base * s.multiplier
    s.wins[winner] += 1
    cols = [c for c in mode.columns_for_win(s.wins[winner]) if not s.columns[c]["over"]]
    for c in cols:
        col = s.columns[c]
        col["points"][winner] += points
        col["wins"][winner] += 1
        if col["points"][winner] >= mode.target:
            col["over"] = True
    hr = HandResult(
        hand_number=s.hand_number,
        dealer=s.dealer,
        outcome=outcome,
        winner=winner,
        points=points,
        base_points=base,
        multiplier=s.multiplier,
        upcard=s.upcard.text if s.upcard else None,
        knock_limit=s.knock_limit,
        knocker=sd["knocker"],
        knock_card=sd["knock_card"],
        knocker_melds=tuple(tuple(x) for x in sd["knocker_melds"]),
        knocker_deadwood_cards=tuple(sd["knocker_deadwood_cards"]),
        knocker_deadwood=sd["knocker_deadwood"],
        defender=sd["defender"],
        defender_melds=tuple(tuple(m.to_list()) for m in own.melds),
        defender_deadwood_cards=tuple(c.text for c in own.deadwood_cards),
        defender_deadwood=own.deadwood,
        layoffs=tuple((c, i) for c, i in sd["layoffs"]),
        columns=tuple(cols),
    )
    s.dealer = winner
    _finish_hand(s, events, hr)


def _gin_finish_drawn(s: GameState, events: list[Event]) -> None:
    for col in s.columns:
        if not col["over"]:
            col["drawn"] = True
    hr = HandResult(
        hand_number=s.hand_number,
        dealer=s.dealer,
        outcome=HandOutcome.DRAWN,
        winner=None,
        points=0,
        upcard=s.upcard.text if s.upcard else None,
        knock_limit=s.knock_limit,
        multiplier=s.multiplier,
        reason=f"{len(s.stock)} cards left in the stock",
    )
    _finish_hand(s, events, hr)


def _finish_hand(s: GameState, events: list[Event], hr: HandResult) -> None:
    """One path for every hand ending: record, score sheet, game over or the next deal."""
    s.hand_results.append(hr)
    _emit(s, events, Event("hand_over", hr.to_dict()))
    if all(col["over"] for col in s.columns):
        s.result = _game_result(s)
        s.phase = Phase.OVER
        data = s.result.to_dict()
        data["seed"] = s.seed
        _emit(s, events, Event("game_over", data))
        return
    _deal(s, events)


def _game_result(s: GameState) -> GameResult:
    n = s.num_players
    mode = s.mode
    if isinstance(mode, RummyMode):
        totals = tuple(s.columns[0]["points"])
        winner = max(range(n), key=lambda i: totals[i])
        ordered = sorted(totals, reverse=True)
        return GameResult(mode.name, winner, totals, ordered[0] - ordered[1], len(s.hand_results))
    cols = []
    grand = [0] * n
    for ci, col in enumerate(s.columns):
        pts = col["points"]
        winner = max(range(n), key=lambda i: pts[i])
        wins = col["wins"]
        shutout = all(wins[i] == 0 for i in range(n) if i != winner) and not col["drawn"]
        scored = [
            p * (mode.shutout_multiplier if shutout and i == winner else 1)
            for i, p in enumerate(pts)
        ]
        game_b = [mode.game_bonus if i == winner else 0 for i in range(n)]
        line_b = [mode.line_bonus * wins[i] for i in range(n)]
        totals = [scored[i] + game_b[i] + line_b[i] for i in range(n)]
        for i in range(n):
            grand[i] += totals[i]
        cols.append(
            ColumnResult(
                ci,
                winner,
                tuple(pts),
                tuple(wins),
                shutout,
                tuple(scored),
                tuple(game_b),
                tuple(line_b),
                tuple(totals),
            )
        )
    ordered = sorted(grand, reverse=True)
    top = [i for i in range(n) if grand[i] == ordered[0]]
    return GameResult(
        mode.name,
        top[0] if len(top) == 1 else None,
        tuple(grand),
        ordered[0] - ordered[1],
        len(s.hand_results),
        tuple(cols),
    )


# ---------------------------------------------------------------------------- rummy


def _apply_rummy(s: GameState, act: Action, events: list[Event]) -> None:
    seat = s.turn
    k = act.kind
    if s.phase is Phase.DRAW:
        if k not in (K.DRAW_STOCK, K.DRAW_DISCARD):
            raise _wrong_phase(s, act)
        _draw(s, act, events, Phase.PLAY)
        s.placed_this_turn = False
        return
    if s.phase is not Phase.PLAY:
        raise _wrong_phase(s, act)
    hand = s.hands[seat]
    if k == K.MELD:
        for c in act.cards:
            _need_card(s, seat, c)
        mm = mask_of(act.cards)
        meld = _MELDS.get(mm)
        if meld is None:
            raise IllegalMeldError(f"{_meld_text(mm)} is not a set or a run")
        _check_strand(s, seat, len(act.cards), mm)
        for c in act.cards:
            _remove(s, seat, c)
        s.table.append([meld.kind, mm])
        s.placed_this_turn = True
        _emit(
            s,
            events,
            Event("meld", {"seat": seat, "cards": meld.to_list(), "index": len(s.table) - 1}),
        )
        if not s.hands[seat]:
            _rummy_out(s, seat, events, None)
        return
    if k == K.LAYOFF:
        card = act.card
        _need_card(s, seat, card)
        i = act.target
        if i is None or i >= len(s.table):
            raise InvalidLayoffError(f"there is no meld {i} on the table")
        kind, mm = s.table[i]
        if not attach_mask(kind, mm) & card.bit:
            raise InvalidLayoffError(f"{card} cannot be laid off onto meld {i} ({_meld_text(mm)})")
        _check_strand(s, seat, 1, card.bit)
        _remove(s, seat, card)
        s.table[i][1] = mm | card.bit
        s.placed_this_turn = True
        _emit(s, events, Event("layoff", {"seat": seat, "card": card.text, "meld": i}))
        if not s.hands[seat]:
            _rummy_out(s, seat, events, None)
        return
    if k == K.DISCARD:
        card = act.card
        _check_discard(s, seat, card)
        if len(hand) == 1:
            raise MustGoOutError(f"{card} is your last card: play go_out:{card} to go out")
        _remove(s, seat, card)
        s.discard.append(card)
        s.taken = None
        s.placed[seat] = s.placed[seat] or s.placed_this_turn
        s.placed_this_turn = False
        _emit(s, events, Event("discard", {"seat": seat, "card": card.text}))
        s.turn = (seat + 1) % s.num_players
        s.phase = Phase.DRAW
        _rummy_start_turn(s, events)
        return
    if k == K.GO_OUT:
        card = act.card
        _check_discard(s, seat, card)
        if len(hand) != 1:
            raise IllegalActionError(f"go_out needs exactly one card left, you hold {len(hand)}")
        _remove(s, seat, card)
        s.face_down = [card]
        _rummy_out(s, seat, events, card)
        return
    raise _wrong_phase(s, act)


def _check_strand(s: GameState, seat: int, n: int, mm: int) -> None:
    hand = s.hands[seat]
    if len(hand) - n == 1 and s.taken is not None:
        left = mask_of(hand) ^ mm
        if left == s.taken.bit:
            raise MustGoOutError(
                f"that would leave only {s.taken}, which was just taken from the discard pile "
                "and cannot be discarded this turn"
            )


def _rummy_start_turn(s: GameState, events: list[Event]) -> None:
    if _rummy_hopeless(s):
        _rummy_stalemate(s, events, "no player can ever go out")
        return
    if s.stock:
        return
    mode: RummyMode = s.mode  # type: ignore[assignment]
    if s.reshuffles >= mode.reshuffles:
        _rummy_stalemate(s, events, "the stock ran out a second time")
        return
    if len(s.discard) < 2:
        _rummy_stalemate(s, events, "the stock ran out with no discard pile to reshuffle")
        return
    top = s.discard.pop()
    pile = s.discard
    rng = random.Random(f"{s.seed}:{s.hand_number}:reshuffle:{s.reshuffles}")
    rng.shuffle(pile)
    s.stock = pile
    s.discard = [top]
    s.reshuffles += 1
    _emit(s, events, Event("reshuffle", {"stock": len(s.stock), "top": top.text}))


def _rummy_hopeless(s: GameState) -> bool:
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


def _rummy_stalemate(s: GameState, events: list[Event], reason: str) -> None:
    hr = HandResult(
        hand_number=s.hand_number,
        dealer=s.dealer,
        outcome=HandOutcome.STALEMATE,
        winner=None,
        points=0,
        upcard=s.upcard.text if s.upcard else None,
        remaining=tuple(tuple(c.text for c in sorted(h)) for h in s.hands),
        reason=reason,
    )
    s.dealer = (s.dealer + 1) % s.num_players
    _finish_hand(s, events, hr)


def _rummy_out(s: GameState, seat: int, events: list[Event], last: Card | None) -> None:
    mode: RummyMode = s.mode  # type: ignore[assignment]
    base = sum(c.value for i, h in enumerate(s.hands) if i != seat for c in h)
    rummy = not s.placed[seat]
    mult = mode.going_rummy_multiplier if rummy else 1
    points = base * mult
    col = s.columns[0]
    col["points"][seat] += points
    col["wins"][seat] += 1
    s.wins[seat] += 1
    if col["points"][seat] >= mode.target_for(s.num_players):
        col["over"] = True
    hr = HandResult(
        hand_number=s.hand_number,
        dealer=s.dealer,
        outcome=HandOutcome.OUT,
        winner=seat,
        points=points,
        base_points=base,
        multiplier=mult,
        upcard=s.upcard.text if s.upcard else None,
        going_rummy=rummy,
        knock_card=last.text if last else None,
        remaining=tuple(tuple(c.text for c in sorted(h)) for h in s.hands),
        columns=(0,),
    )
    s.dealer = (s.dealer + 1) % s.num_players
    _finish_hand(s, events, hr)


# ============================================================================ views


def _base_view(s: GameState, seat: int | None, history: str) -> dict[str, Any]:
    n = s.num_players
    mode = s.mode
    v: dict[str, Any] = {
        "mode": mode.name,
        "settings": mode.to_dict(),
        "num_players": n,
        "seat": seat,
        "hand_number": s.hand_number,
        "dealer": s.dealer,
        "phase": s.phase.value,
        "to_act": s.to_act,
        "is_over": s.is_over,
        "target": s.target,
        "upcard": s.upcard.text if s.upcard else None,
        "knock_limit": s.knock_limit if isinstance(mode, GinMode) else None,
        "multiplier": s.multiplier,
        "discard_pile": [c.text for c in s.discard],
        "stock_count": len(s.stock),
        "face_down_count": len(s.face_down),
        "card_counts": [len(h) for h in s.hands],
        "known_cards": [[c.text for c in k] for k in s.known],
        "taken_card": s.taken.text if s.taken else None,
        "table": [[c.text for c in _sorted_cards(kind, mm)] for kind, mm in s.table],
        "showdown": _public_showdown(s),
        "scores": s.scores,
        "score_sheet": {
            "columns": [
                {"points": list(c["points"]), "hands_won": list(c["wins"]), "over": c["over"]}
                for c in s.columns
            ],
            "hands": _sheet_rows(s),
        },
        "hands_won": list(s.wins),
        "last_hand": s.hand_results[-1].to_dict() if s.hand_results else None,
        "result": s.result.to_dict() if s.result else None,
        "actions_played": s.actions_played,
    }
    if isinstance(mode, RummyMode):
        v["placed"] = list(s.placed)
        v["reshuffles"] = s.reshuffles
    if history == "game":
        v["history"] = s.history
    elif history == "hand":
        v["history"] = s.hand_history
    if s.is_over:
        v["seed"] = s.seed
    return v


def _sorted_cards(kind: str, mm: int) -> list[Card]:
    cards = cards_of(mm)
    if kind == "set":
        cards.sort(key=lambda c: c.suit_index)
    return cards


def _public_showdown(s: GameState) -> dict[str, Any] | None:
    if s.showdown is None or s.phase is not Phase.LAYOFF:
        return None
    sd = s.showdown
    return {
        k: sd[k]
        for k in (
            "knocker",
            "defender",
            "kind",
            "knocker_melds",
            "knocker_deadwood_cards",
            "knocker_deadwood",
            "layoffs",
        )
    }


def _sheet_rows(s: GameState) -> list[dict[str, Any]]:
    """The score sheet's hands, each with ``running``: per column, every seat's running total
    after this hand."""
    running = [[0] * s.num_players for _ in s.columns]
    rows = []
    for h in s.hand_results:
        if h.winner is not None:
            for c in h.columns:
                running[c][h.winner] += h.points
        rows.append({**_sheet_row(h), "running": [list(r) for r in running]})
    return rows


def _sheet_row(h: HandResult) -> dict[str, Any]:
    return {
        "hand": h.hand_number,
        "outcome": h.outcome.value,
        "winner": h.winner,
        "points": h.points,
        "columns": list(h.columns),
    }


def view_for(state: GameState, seat: int, history: str = "hand") -> dict[str, Any]:
    """What ``seat`` may know (JSON-safe). ``history``: "hand", "game" or "none"."""
    if not 0 <= seat < state.num_players:
        raise EngineError(f"no seat {seat} in a {state.num_players}-player game")
    v = _base_view(state, seat, history)
    v["hand"] = [c.text for c in sorted(state.hands[seat])]
    v["legal_actions"] = [str(a) for a in legal_actions(state)] if state.to_act == seat else []
    return v


def spectator_view(state: GameState, history: str = "hand") -> dict[str, Any]:
    """What a spectator may know: public information only, no hand."""
    v = _base_view(state, None, history)
    v["hand"] = None
    v["legal_actions"] = []
    return v


_ = BY_BIT  # re-exported for helpers
