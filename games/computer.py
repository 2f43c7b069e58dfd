"""A computer seat's move at a live table: its level's bot, seeded, given the seat's view."""
from __future__ import annotations

import logging

from games import engine as E
from games.bots import get_bot
from games.bots.levels import LEVEL_KEYS

from .timeouts import safe_action

log = logging.getLogger(__name__)


def bot_action(state: E.GameState, seat: int, level: int, seed: int) -> str:
    """The bot's move for ``seat``; deterministic for a given state and seed."""
    legal = E.legal_actions(state)
    key = LEVEL_KEYS[level]
    bot = get_bot(key, seed)
    choice = bot.choose(E.view_for(state, seat), legal)
    if getattr(bot, "cut_short", 0):
        log.warning("the %s bot's decision was cut short by its time limit (a loaded "
                    "machine): it may differ from a replay with the same seed", key)
    text = str(choice)
    if text not in {str(a) for a in legal}:  # a bot bug must never stall the table
        return safe_action(state)
    return text
