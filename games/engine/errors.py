"""Error hierarchy. Everything derives from ``EngineError(ValueError)``."""

from __future__ import annotations


class EngineError(ValueError):
    """Base class of every error the engine raises on bad input."""


class InvalidCardError(EngineError):
    """Text that is not a card (or a duplicate card where distinct cards are required)."""


class InvalidMeldError(EngineError):
    """Cards that do not form a set or a run."""


class InvalidActionError(EngineError):
    """Action text that cannot be parsed."""


class IllegalActionError(EngineError):
    """A well-formed action that the rules forbid in this state. The state is unchanged."""


class GameOverError(IllegalActionError):
    """The game has ended; nothing more may be played."""


class NotYourTurnError(IllegalActionError):
    """The seat sending the action is not the one to act."""


class WrongPhaseError(IllegalActionError):
    """This kind of action is not allowed in the current phase."""


class CardNotInHandError(IllegalActionError):
    """The card named is not in the acting seat's hand."""


class CannotDiscardTakenCardError(IllegalActionError):
    """The card just taken from the discard pile may not be discarded in the same turn."""


class KnockTooHighError(IllegalActionError):
    """Knocking with more deadwood than this hand's knock limit (or knocking not allowed)."""


class NotGinError(IllegalActionError):
    """``gin``/``big_gin`` claimed but the cards do not all meld."""


class EmptyPileError(IllegalActionError):
    """Drawing from an empty stock or discard pile."""


class InvalidLayoffError(IllegalActionError):
    """The card cannot be laid off onto that meld (or lay-offs are not allowed)."""


class IllegalMeldError(IllegalActionError):
    """The cards named are not a legal new meld from the hand."""


class MustGoOutError(IllegalActionError):
    """Rummy: the last card must go out with ``go_out``, or a play would strand the taken card."""


class RecordError(EngineError):
    """A game record that does not parse or does not replay."""
