"""The live-play side of the rules engine: building, loading, applying, safe moves, bots.

Everything the games app needs from ``games.engine`` and ``games.bots`` goes through here,
so services, tasks and tests share one way of doing it.
"""
from __future__ import annotations

import logging
import random
from collections.abc import Sequence
from typing import Any

from games import engine as E

log = logging.getLogger(__name__)

BOT_LEVELS = (1, 2, 3, 4)
BOT_LEVEL_NAMES = {1: "Easy", 2: "Medium", 3: "Hard", 4: "Expert"}
# games.bots names of the levels.
BOT_LEVEL_KEYS = {1: "easy", 2: "medium", 3: "hard", 4: "expert"}


def default_target(mode: str, num_players: int) -> int:
    return E.get_mode(mode).target_for(num_players)


def seat_limits(mode: str) -> tuple[int, int]:
    m = E.get_mode(mode)
    return m.min_players, m.max_players


def new_state(mode: str, seed: int, num_players: int, target: int | None) -> E.GameState:
    """A fresh game; ``target`` replaces the mode's own target when it differs."""
    settings: dict[str, Any] = {}
    if target and target != default_target(mode, num_players):
        if mode == "rummy":
            settings["targets"] = ((num_players, target),)
        else:
            settings["target"] = target
    return E.new_game(mode, seed, num_players, settings=settings or None)


def load(data: dict[str, Any]) -> E.GameState:
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


def apply(state: E.GameState, action_text: str, seat: int) -> tuple[E.GameState, tuple]:
    """Apply for ``seat``; engine errors propagate (invalid text, illegal move)."""
    new, events = E.apply(state, action_text, seat)
    return new, events


def view(state: E.GameState, seat: int | None) -> dict[str, Any]:
    """The view a seat (or a spectator, ``None``) may see."""
    if seat is None:
        return E.spectator_view(state)
    return E.view_for(state, seat)


def visible_last(last: dict[str, Any] | None, state: E.GameState | None,
                 seat: int | None) -> dict[str, Any] | None:
    """The move that produced a frame, as ``seat`` (None: a spectator) may see it. A knock's
    card lies face down until the hand is scored, so the others read just ``knock``."""
    if (
        last is not None and state is not None and state.face_down
        and last.get("seat") != seat and str(last.get("action", "")).startswith("knock:")
    ):
        return {**last, "action": "knock"}
    return last


def visible_events(events: Sequence[E.Event], seat: int | None) -> list[dict[str, Any]]:
    return [e.to_dict() for e in events if e.visible_to(seat)]


def safe_action(state: E.GameState) -> str:
    """The move the server plays for a player whose clock ran out.

    Pass on the upcard, draw from the stock, accept the lay-offs, go out when only that is
    left, else discard the card that leaves the least deadwood (ties: the highest card).
    """
    legal = E.legal_actions(state)
    texts = [str(a) for a in legal]
    for preferred in ("pass", "draw:stock", "accept_layoffs", "draw:discard"):
        if preferred in texts:
            return preferred
    go_out = [t for t in texts if t.startswith("go_out:")]
    if go_out:
        return go_out[0]
    discards = [a for a in legal if a.kind == E.ActionKind.DISCARD]
    if discards:
        hand = list(state.hands[state.to_act])

        def cost(a):
            rest = [c for c in hand if c != a.card]
            return (E.deadwood(rest), -a.card.value, -a.card.rank)

        return str(min(discards, key=cost))
    if "done" in texts:
        return "done"
    return texts[0]


def _get_bot_factory():
    try:
        from games.bots import get_bot
    except ImportError:
        return None
    return get_bot


class RandomBot:
    """Fallback while ``games.bots`` is unavailable: a uniformly random legal action."""

    def __init__(self, seed: int):
        self.rng = random.Random(seed)

    def choose(self, view: dict[str, Any], legal: Sequence[E.Action]) -> E.Action:
        return self.rng.choice(list(legal))


def bot_action(state: E.GameState, seat: int, level: int, seed: int) -> str:
    """The bot's move for ``seat``; deterministic for a given state and seed."""
    legal = E.legal_actions(state)
    factory = _get_bot_factory()
    bot = factory(BOT_LEVEL_KEYS[level], seed) if factory else RandomBot(seed)
    choice = bot.choose(E.view_for(state, seat), legal)
    if getattr(bot, "cut_short", 0):
        log.warning("the %s bot's decision was cut short by its time limit (a loaded "
                    "machine): it may differ from a replay with the same seed",
                    BOT_LEVEL_KEYS[level])
    text = str(choice)
    if text not in {str(a) for a in legal}:  # a bot bug must never stall the table
        return safe_action(state)
    return text


def game_result(state: E.GameState) -> dict[str, Any] | None:
    return state.result.to_dict() if state.result else None


def hand_results(state: E.GameState) -> list[dict[str, Any]]:
    return [h.to_dict() for h in state.hand_results]


def mode_settings(state: E.GameState) -> dict[str, Any]:
    return state.mode.to_dict()
