"""Tunable numbers of tournaments. Each can be overridden by a ``TOURNAMENTS_<NAME>`` setting;
the defaults live here so the app works with nothing configured. Values are read when used,
so a test's ``settings`` override applies at once."""
from __future__ import annotations

from typing import Any

from django.conf import settings

DEFAULTS: dict[str, Any] = {
    # Rated games a player needs before creating a tournament (staff need none).
    "MIN_RATED_GAMES": 3,
    # Tournaments a player (not staff) may have waiting to start at once: one script made 45
    # in a few seconds, each on the list of upcoming tournaments.
    "MAX_UPCOMING": 3,
    # Seconds after its table opened before the sweep forfeits a player who has neither
    # opened the table nor moved.
    "NO_SHOW_SECONDS": 120,
}


def setting(name: str) -> Any:
    return getattr(settings, f"TOURNAMENTS_{name}", DEFAULTS[name])


def min_rated_games() -> int:
    return int(setting("MIN_RATED_GAMES"))


def max_upcoming() -> int:
    return int(setting("MAX_UPCOMING"))


def no_show_seconds(seconds_per_turn: int = 0) -> int:
    """How long a match's players have to come to its table: ``NO_SHOW_SECONDS``, and at a
    table of ``seconds_per_turn`` at most two turns, so that the no-show rule (the higher
    placed player goes through) decides before the table's clock could forfeit an absent
    player after three timed-out turns (it did, at 15 s a turn, after 45 to 98 s; and gave
    each absentee a fair-play strike for a game never played)."""
    grace = int(setting("NO_SHOW_SECONDS"))
    return min(grace, 2 * seconds_per_turn) if seconds_per_turn > 0 else grace
