"""The checks of a new tournament's settings, with the messages players see."""
from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from core.text import CONTROLS_MESSAGE, has_controls, shows_something
from games import engine as E
from games.models import Mode

from ..exceptions import TournamentError
from ..formats import format_for
from ..models import Format

TURN_SECONDS = (15, 30, 60)
NAME_MAX = 80


def default_target(mode: str) -> int:
    return E.get_mode(mode).target_for(2)


def tournament_settings_check(*, name: object, mode: str, format: str, target: int | None,
                              capacity: int | None, rounds: int | None,
                              duration_minutes: int | None, seconds_per_turn: int,
                              starts_at: datetime | None, entry_opens_at: datetime | None,
                              rating_min: int | None, rating_max: int | None,
                              now: datetime) -> dict[str, Any]:
    """The fields to store (normalised, defaults filled in); raises ``TournamentError``."""
    name = " ".join(str(name or "").split())
    if not 3 <= len(name) <= NAME_MAX:
        raise TournamentError(f"The name must have 3 to {NAME_MAX} characters.")
    if has_controls(name):
        raise TournamentError(CONTROLS_MESSAGE)
    if not shows_something(name):  # four zero-width spaces made an invisible list link
        raise TournamentError("The name must have characters that show, not only invisible "
                              "ones.")
    if mode not in Mode.values:
        raise TournamentError("Choose a game.")
    if format not in Format.values:
        raise TournamentError("Choose a format.")
    if target is not None and not 50 <= target <= 500:
        raise TournamentError("The target score must be between 50 and 500.")
    rounds, duration_minutes = format_for(format).options(
        capacity=capacity, rounds=rounds, duration_minutes=duration_minutes)
    if seconds_per_turn not in TURN_SECONDS:
        raise TournamentError("Choose 15, 30 or 60 seconds per turn.")
    if starts_at is None or starts_at < now + timedelta(minutes=1):
        raise TournamentError("The start must be at least a minute from now.")
    if starts_at > now + timedelta(days=60):
        raise TournamentError("The start must be within 60 days.")
    # (entries that "opened" in the past open now: a date such as 1 January of the year 1 in
    # a time zone east of UTC was before the database's first day, a 500 on saving it)
    entry_opens_at = max(entry_opens_at or now, now)
    if entry_opens_at >= starts_at:
        raise TournamentError("Entries must open before the start.")
    for value in (rating_min, rating_max):
        if value is not None and not 0 <= value <= 4000:
            raise TournamentError("Rating limits are between 0 and 4000.")
    if rating_min is not None and rating_max is not None and rating_min >= rating_max:
        raise TournamentError("The rating floor must be below the ceiling.")
    return {
        "name": name, "mode": mode, "format": format,
        "target": target or default_target(mode), "capacity": capacity, "rounds": rounds,
        "duration_minutes": duration_minutes, "seconds_per_turn": seconds_per_turn,
        "starts_at": starts_at, "entry_opens_at": entry_opens_at,
        "rating_min": rating_min, "rating_max": rating_max,
    }
