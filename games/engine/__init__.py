"""Pure-Python Gin Rummy / Basic Rummy rules engine (no Django, standard library only).

See docs/engine.md for the API, action spellings and rule choices.
"""

from .actions import Action, ActionKind
from .cards import RANKS, SUITS, Card, full_deck, shuffled_deck
from .dealing import new_game
from .errors import (
    CannotDiscardTakenCardError,
    CardNotInHandError,
    EmptyPileError,
    EngineError,
    GameOverError,
    IllegalActionError,
    IllegalMeldError,
    InvalidActionError,
    InvalidCardError,
    InvalidLayoffError,
    InvalidMeldError,
    KnockTooHighError,
    MustGoOutError,
    NotGinError,
    NotYourTurnError,
    RecordError,
    WrongPhaseError,
)
from .events import Event, Visibility
from .layoffs import LayoffResult, best_layoffs
from .legality import legal_actions
from .meld import Meld
from .meld_search import (
    MeldResult,
    best_discards,
    best_melds,
    deadwood,
    deadwood_of_mask,
    hand_value,
)
from .modes import (
    MODES,
    ClassicGin,
    GinMode,
    HollywoodGin,
    Mode,
    OklahomaGin,
    RummyMode,
    StraightGin,
    get_mode,
)
from .phases import Deal, Phase
from .play import apply, is_legal
from .results import ColumnResult, GameResult, HandOutcome, HandResult
from .seat_views import action_seen_by, running_totals, spectator_view, view_for
from .state import ApplyResult, GameState

__all__ = [
    "Action",
    "ActionKind",
    "ApplyResult",
    "CannotDiscardTakenCardError",
    "Card",
    "CardNotInHandError",
    "ClassicGin",
    "ColumnResult",
    "Deal",
    "EmptyPileError",
    "EngineError",
    "Event",
    "GameOverError",
    "GameResult",
    "GameState",
    "GinMode",
    "HandOutcome",
    "HandResult",
    "HollywoodGin",
    "IllegalActionError",
    "IllegalMeldError",
    "InvalidActionError",
    "InvalidCardError",
    "InvalidLayoffError",
    "InvalidMeldError",
    "KnockTooHighError",
    "LayoffResult",
    "MODES",
    "Meld",
    "MeldResult",
    "Mode",
    "MustGoOutError",
    "NotGinError",
    "NotYourTurnError",
    "OklahomaGin",
    "Phase",
    "RANKS",
    "RecordError",
    "RummyMode",
    "SUITS",
    "StraightGin",
    "Visibility",
    "WrongPhaseError",
    "action_seen_by",
    "apply",
    "best_discards",
    "best_layoffs",
    "best_melds",
    "deadwood",
    "deadwood_of_mask",
    "full_deck",
    "get_mode",
    "hand_value",
    "is_legal",
    "legal_actions",
    "new_game",
    "shuffled_deck",
    "running_totals",
    "spectator_view",
    "view_for",
]

from .record import PLAYER_NAME_MAX, GameRecord, Move, iter_replay, player_names, replay  # noqa: E402

__all__ += ["PLAYER_NAME_MAX", "GameRecord", "Move", "iter_replay", "player_names", "replay"]
