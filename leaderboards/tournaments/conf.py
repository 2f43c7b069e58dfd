"""Tunable numbers of tournaments. Each can be overridden by a ``TOURNAMENTS_<NAME>`` setting;
the defaults live here so the app works with nothing configured. Values are read when used,
so a test's ``settings`` override applies at once."""
from __future__ import annotations

from typing import Any

from django.conf import settings

DEFAULTS: dict[str, Any] = {
    # Rated games a player needs before creating a tournament (staff need none).
    "MIN_RATED_GAMES": 3,
    # Seconds after its table opened before the sweep forfeits a player who has neither
    # opened the table nor moved.
    "NO_SHOW_SECONDS": 120,
}


def setting(name: str) -> Any:
    return getattr(settings, f"TOURNAMENTS_{name}", DEFAULTS[name])


def min_rated_games() -> int:
    return int(setting("MIN_RATED_GAMES"))


def no_show_seconds() -> int:
    return int(setting("NO_SHOW_SECONDS"))
