"""Has this account played? Asked before an account becomes a bot (only an account with no
games may, docs/bot-api.md "Bot accounts").

``accounts`` sits under the apps that know about games, so the owner of the games answers:
``games`` registers a check in its ``AppConfig.ready()``::

    from accounts.activity import activity_check_register
    activity_check_register("games", lambda user: ...)  # True if the user has played

A check returns True when the user has games (finished, or a seat at a table now).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from accounts.models import User

ActivityCheck = Callable[["User"], bool]

_CHECKS: dict[str, ActivityCheck] = {}


def activity_check_register(key: str, check: ActivityCheck) -> None:
    """Add (or replace, by key) a check that says whether a user has played."""
    _CHECKS[key] = check


def activity_check_unregister(key: str) -> None:
    _CHECKS.pop(key, None)


def user_has_played(user: User) -> bool:
    """True if any registered check says ``user`` has games."""
    return any(check(user) for check in _CHECKS.values())
