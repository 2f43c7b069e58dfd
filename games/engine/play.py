"""Playing an action: ``apply`` (on a copy, with its events) and ``is_legal``."""

from __future__ import annotations

from . import gin, rummy
from .actions import Action
from .errors import EngineError, GameOverError, IllegalActionError, NotYourTurnError
from .events import Event
from .legality import legal_actions, wrong_phase
from .phases import Phase
from .state import ApplyResult, GameState
from .turn import Handler

__all__ = ["apply", "is_legal"]

# Each family's rules: phase -> action kind -> handler (see gin.py and rummy.py).
_RULES = {"gin": gin.RULES, "rummy": rummy.RULES}
_NONE: dict[str, Handler] = {}


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
    handler = _RULES[state.mode.family].get(state.phase, _NONE).get(act.kind)
    if handler is None:
        raise wrong_phase(state, act)
    handler(new, act, events)
    new.actions_played += 1
    if len(new._moves) != new._moves_len:
        new._moves = new._moves[: new._moves_len]
    new._moves.append((state.turn, str(act)))
    new._moves_len += 1
    return ApplyResult(new, tuple(events))


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
