"""What closing an account asks of the apps above accounts (settings, "Close account").

``accounts`` sits under the apps that hold a player's games, contacts and tournaments, so
each of them registers, in its ``AppConfig.ready()``, what closing means to it::

    from accounts.closing import closing_check_register, closing_step_register
    closing_check_register("games", lambda user: "You are playing at Table 4: ...")
    closing_step_register("games", lambda user: ...)  # leave the waiting tables

A *check* returns why the account cannot be closed now (a sentence for the player), or None.
A *step* removes what the app keeps about the player; the steps run in the closing's
transaction, so they either all happen or none does.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from accounts.models import User

ClosingCheck = Callable[["User"], "str | None"]
ClosingStep = Callable[["User"], None]

_CHECKS: dict[str, ClosingCheck] = {}
_STEPS: dict[str, ClosingStep] = {}


def closing_check_register(key: str, check: ClosingCheck) -> None:
    """Add (or replace, by key) a check that can hold a closing back."""
    _CHECKS[key] = check


def closing_step_register(key: str, step: ClosingStep) -> None:
    """Add (or replace, by key) a step run when an account closes."""
    _STEPS[key] = step


def closing_unregister(key: str) -> None:
    _CHECKS.pop(key, None)
    _STEPS.pop(key, None)


def closing_obstacles(user: User) -> list[str]:
    """Why ``user`` cannot close their account now (empty: nothing holds it back)."""
    return [reason for check in _CHECKS.values() if (reason := check(user))]


def closing_steps_run(user: User) -> None:
    for step in _STEPS.values():
        step(user)
