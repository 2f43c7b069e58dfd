"""Computer opponents: a protocol, four levels and a reference panel (see docs/bots.md).

>>> from games.engine import new_game, legal_actions, view_for
>>> state = new_game("classic", seed=1)
>>> bot = get_bot("medium", seed=1)
>>> str(bot.choose(view_for(state, state.to_act), legal_actions(state))) in ("take_upcard", "pass")
True
"""

from __future__ import annotations

import importlib
import random
from typing import Any

from .base import BaseBot, Bot
from .levels import LEVEL_TABLE

__all__ = ["Bot", "BaseBot", "get_bot", "LEVELS", "PANEL", "BOT_NAMES"]

LEVELS = tuple(level.key for level in LEVEL_TABLE)
PANEL = ("random", "baseline", "ginwaiter")
BOT_NAMES = LEVELS + PANEL


def _classes() -> dict[str, type[BaseBot]]:
    from .expert import ExpertBot
    from .levels import BaselineBot, EasyBot, GinWaiterBot, HardBot, MediumBot, RandomBot

    return {
        "easy": EasyBot,
        "medium": MediumBot,
        "hard": HardBot,
        "expert": ExpertBot,
        "random": RandomBot,
        "baseline": BaselineBot,
        "ginwaiter": GinWaiterBot,
        "gin-waiter": GinWaiterBot,
    }


def get_bot(name_or_level: str, seed: int | str | None = 0, **options: Any) -> Bot:
    """A bot by level (``easy``/``medium``/``hard``/``expert``), panel name (``random``,
    ``baseline``, ``ginwaiter``) or import path ``package.module:Class``.

    The bot gets its own ``random.Random(seed)``, so a seeded bot is deterministic. Options
    go to the constructor (e.g. ``time_budget=0.2`` for the Expert).
    """
    if not isinstance(name_or_level, str) or not name_or_level.strip():
        raise ValueError("bot name must be a non-empty string")
    name = name_or_level.strip()
    rng = random.Random(seed)
    if ":" in name:
        module_name, _, attr = name.partition(":")
        try:
            module = importlib.import_module(module_name)
            cls = getattr(module, attr)
        except (ImportError, AttributeError) as exc:
            raise ValueError(f"cannot import bot {name!r}: {exc}") from None
        bot: Bot  # checked below: anything with a choose(view, legal) method
        try:
            bot = cls(rng=rng, **options)
        except TypeError:
            bot = cls()
        if not callable(getattr(bot, "choose", None)):
            raise ValueError(f"{name!r} has no choose(view, legal) method")
        return bot
    classes = _classes()
    cls = classes.get(name.lower())
    if cls is None:
        raise ValueError(
            f"unknown bot {name!r}; choose one of {', '.join(BOT_NAMES)} or module:Class"
        )
    return cls(rng=rng, **options)
