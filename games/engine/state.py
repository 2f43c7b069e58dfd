"""Game states: a whole game (every hand up to the target) as one state machine.

This module holds the state and its serialisation (the values it holds besides cards, its
``Phase``, ``Deal`` and ``Showdown``, are in phases.py); the rules live beside it, one
room per concern: ``dealing`` (new games and hands), ``legality`` (the legal actions of each phase),
``play`` (``apply`` and ``is_legal``), ``gin`` and ``rummy`` (the actions of each family,
one handler per phase and action), ``scoring`` (hand and game results) and ``seat_views`` (what a
seat or a spectator may see). ``games.engine`` exports them all; this module imports none of
them, so the rules import the state without a circle.

``legal_actions(state)`` is the single source of legality, ``apply(state, action, seat=)``
returns ``(new_state, events)`` and never mutates its input; an illegal action raises a
specific ``IllegalActionError`` and changes nothing.

>>> from games.engine import apply, legal_actions, new_game
>>> s = new_game("classic", seed=7)
>>> s.phase, s.to_act in (0, 1), len(legal_actions(s))
(<Phase.OFFER: 'offer'>, True, 2)
>>> s2, events = apply(s, "pass", seat=s.to_act)
>>> s2.hand_number, s.passes, s2.passes
(1, 0, 1)
"""

from __future__ import annotations

from typing import Any, NamedTuple

from .cards import FULL_MASK, Card, cards_of, mask_of
from .errors import EngineError
from .events import Event, Visibility
from .modes import Mode, mode_from_dict
from .phases import Deal, Phase, Showdown
from .results import GameResult, HandResult

__all__ = [
    "GameState",
    "ApplyResult",
]

PUBLIC = Visibility.PUBLIC


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
    "_drawn",
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
    showdown: Showdown | None  # gin showdown in progress (kept after the game's last hand)
    reshuffles: int
    placed: list[bool]  # rummy: seat melded/laid off in an earlier turn of this hand
    placed_this_turn: bool
    columns: list[dict[str, Any]]  # score sheet: per column points / wins / over / drawn
    wins: list[int]  # hands won in this game per seat
    hand_results: list[HandResult]
    result: GameResult | None
    actions_played: int
    first_dealer: int
    _moves: list[tuple[int, str]]  # may run past _moves_len: shared by the states of one game
    _moves_len: int
    _hist: list[dict[str, Any]]  # likewise shared, read up to _hist_len
    _hist_len: int
    _hand_hist_start: int
    # this hand's draws from the stock, each (its place in the hand's history, seat, card):
    # the card is the drawer's alone, so it is kept apart from the public history
    _drawn: tuple[tuple[int, int, str], ...]
    _compact: bool

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

    def history_seen_by(
        self, seat: int | None, *, whole_game: bool = False
    ) -> list[dict[str, Any]]:
        """The public history of this hand (``whole_game``: of the game) as ``seat`` knows it:
        its own draws from the stock in this hand name the card it drew. A spectator (None)
        gets the public history as it is."""
        if whole_game:
            events, start = self.history, self._hand_hist_start
        else:
            events, start = self.hand_history, 0
        mine = [(i, card) for i, who, card in self._drawn if who == seat]
        if not mine:
            return events
        events = list(events)
        for i, card in mine:
            ev = events[start + i]
            events[start + i] = {"kind": ev["kind"], "data": {**ev["data"], "card": card}}
        return events

    def note_stock_draw(self, seat: int, card: Card) -> None:
        """Remember the card ``seat`` just drew from the stock (the public ``draw`` event was
        the last one logged) for ``history_seen_by``."""
        place = self._hist_len - 1 - self._hand_hist_start
        self._drawn = (*self._drawn, (place, seat, card.text))

    def card_count(self) -> int:
        n = len(self.stock) + len(self.discard) + len(self.face_down)
        n += sum(len(h) for h in self.hands)
        melded: int = sum(mm.bit_count() for _, mm in self.table)
        return n + melded

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
            new.showdown = self.showdown.copy()
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
            "showdown": self.showdown.to_dict() if self.showdown else None,
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
            "drawn": [list(x) for x in self._drawn],
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
            s.showdown = Showdown.from_dict(d["showdown"]) if d["showdown"] else None
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
            # states stored before the key existed knew no drawn cards
            s._drawn = tuple(
                (int(i), int(who), Card.parse(card).text) for i, who, card in d.get("drawn", ())
            )
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


def emit(s: GameState, events: list[Event], ev: Event) -> None:
    """Add ``ev`` to this action's events and, if public, to the game's history."""
    events.append(ev)
    s._log(ev)
