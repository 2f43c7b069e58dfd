"""How a move reads to the others: what a seat (or a spectator) may see of someone's action."""

from __future__ import annotations

from .state import GameState

__all__ = ["action_seen_by"]


def action_seen_by(state: GameState, action: str, actor: int | None, viewer: int | None) -> str:
    """``action``, just played by ``actor``, as ``viewer`` (None: a spectator) may see it in
    ``state``, the state it produced. A knock's card lies face down until the hand is scored,
    so everyone but the knocker reads just ``knock``."""
    if state.face_down and viewer != actor and action.startswith("knock:"):
        return "knock"
    return action
