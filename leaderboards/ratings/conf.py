"""Tunable numbers of ratings, playbans and leaderboards. Each can be overridden by a
``RATINGS_<NAME>`` setting (``core.conf``); values are read when used, so a test's
``settings`` override applies at once."""
from __future__ import annotations

from datetime import timedelta

from core.conf import Settings

SETTINGS = Settings("RATINGS", {
    # Games that finished this long before the one being rated and are still unrated are
    # left to ``ratings_rebuild`` (a lost task older than this is an operations problem, not
    # a race); the periodic catch-up rates those within it.
    "CATCH_UP_HOURS": 6,
    # The playban ladder: strikes (abandoned or timed-out rated games) within the rolling
    # window, counting the new one, give a bar of this many minutes. One strike is a warning.
    "PLAYBAN_WINDOW_DAYS": 7,
    "PLAYBAN_LADDER": {2: 15, 3: 60, 4: 180, 5: 24 * 60},
    # The rating board lists established players who played in this many days.
    "ACTIVE_DAYS": 30,
})


def catch_up_window() -> timedelta:
    return timedelta(hours=SETTINGS.get("CATCH_UP_HOURS"))


def playban_window() -> timedelta:
    return timedelta(days=SETTINGS.get("PLAYBAN_WINDOW_DAYS"))


def playban_ladder() -> dict[int, int]:
    """``{strikes: minutes}``: the bar given by the strikes-th strike in the window."""
    return dict(SETTINGS.get("PLAYBAN_LADDER"))


def active_days() -> int:
    return int(SETTINGS.get("ACTIVE_DAYS"))
