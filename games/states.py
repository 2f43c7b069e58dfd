"""A table's game state and its stored forms: a new deal's seed, a new game with the table's
settings, the state as a table stores it after every move, and the parts a finished ``Game``
keeps."""
from __future__ import annotations

import secrets
from collections.abc import Sequence
from typing import Any

from games import engine as E

from .local.table import new_state  # the one way a game starts, online and offline

__all__ = ["new_seed", "new_state", "load", "dump", "replay_moves", "game_result",
           "hand_results", "mode_settings"]

# A deal's seed is below 2**53: every seed is exact in a browser's (or any JavaScript
# client's) JSON number, where a 62-bit one lost its last digits (604722250469829277 read
# 604722250469829200) and replayed another deal.
SEED_BITS = 53


def new_seed() -> int:
    """A new table's seed (``SEED_BITS``)."""
    return secrets.randbits(SEED_BITS)


def load(data: dict[str, Any] | None) -> E.GameState:
    """The state stored on a table (``dump``). ``Table.state`` is empty (None) only before
    the deal: a caller that loads it has checked that the game started."""
    if data is None:
        raise TypeError("this table has no game state: the game has not started")
    return E.GameState.from_dict(data)


def dump(state: E.GameState) -> dict[str, Any]:
    """The state as stored on its table after every move: compact (the current hand's public
    history only; the moves are the table's ``TableAction`` rows), so a move writes a few KB
    however long the game has run."""
    return state.to_dict(compact=True)


def replay_moves(mode: str, seed: int, num_players: int, target: int | None,
                 moves: Sequence[tuple[int, str]]) -> E.GameState:
    """The full state (with the game's moves and history) after ``moves`` from the start."""
    state = new_state(mode, seed, num_players, target)
    for seat, text in moves:
        state, _ = E.apply(state, text, seat)
    return state


def game_result(state: E.GameState) -> dict[str, Any] | None:
    """A finished game's result as ``Game.result`` stores it."""
    return state.result.to_dict() if state.result else None


def hand_results(state: E.GameState) -> list[dict[str, Any]]:
    """Every hand's result as ``Game.hands`` stores them."""
    return [h.to_dict() for h in state.hand_results]


def mode_settings(state: E.GameState) -> dict[str, Any]:
    """The game's rules as ``Game.settings`` stores them."""
    return state.mode.to_dict()
