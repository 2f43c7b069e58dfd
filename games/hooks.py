"""Questions that apps above or beside ``games`` may answer, without ``games`` importing them.

``games`` and ``social`` sit side by side in the layering: ``games`` must not import
``social``. Yet blocking reaches the tables (someone you block cannot join your private tables,
and you do not see their table chat). So ``games`` asks through this small registry and
``social`` registers its answers in ``SocialConfig.ready()``:

* a **seat check** ``fn(table, user, others) -> str | None`` is asked before ``user`` takes a
  seat at, or opens, a *private* table. ``others`` is the frozenset of ids of the people they
  would join there (the table's creator and every seated player). A non-empty string refuses;
  the string is a reason for logs and tests only. The user is shown the same generic error as
  for a wrong invite link, so nobody learns that they are blocked.
* a **hidden-senders** function ``fn(user_id) -> set[int]`` names the users whose table chat
  ``user_id`` must not see. Table sockets ask it when they connect (and with every
  snapshot); the snapshot's recent chat is filtered with it too.

When the answer changes (a block is made or lifted), call ``hidden_senders_changed(user_ids)``:
after the commit, those users' open table sockets reload the set and get a fresh snapshot
without the hidden lines.

With nothing registered every seat is allowed and every line of chat is shown.
"""
from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import Any

log = logging.getLogger(__name__)

SeatCheck = Callable[[Any, Any, frozenset], "str | None"]
HiddenSenders = Callable[[int], Iterable[int]]

_seat_checks: list[SeatCheck] = []
_hidden_senders: list[HiddenSenders] = []


def register_seat_check(fn: SeatCheck) -> SeatCheck:
    """Add a seat check (registering the same function twice keeps one copy)."""
    if fn not in _seat_checks:
        _seat_checks.append(fn)
    return fn


def register_hidden_senders(fn: HiddenSenders) -> HiddenSenders:
    """Add a hidden-senders function (registering it twice keeps one copy)."""
    if fn not in _hidden_senders:
        _hidden_senders.append(fn)
    return fn


def unregister(fn: Callable) -> None:
    """Remove ``fn`` from both registries (tests)."""
    for registry in (_seat_checks, _hidden_senders):
        while fn in registry:
            registry.remove(fn)


def seat_refusal(table, user, others: Iterable[int]) -> str | None:
    """The first refusal of a registered seat check, or None when ``user`` may join.

    ``user`` themself is left out of ``others``. A check that raises refuses (fail closed).
    """
    if not _seat_checks or user is None or not user.is_authenticated:
        return None
    people = frozenset(o for o in others if o is not None and o != user.pk)
    if not people:
        return None
    for check in list(_seat_checks):
        try:
            reason = check(table, user, people)
        except Exception:
            log.exception("seat check %r failed: refusing", check)
            return "check_failed"
        if reason:
            return str(reason)
    return None


def hidden_senders(user) -> frozenset[int]:
    """Ids of the users whose table chat ``user`` must not see (empty for visitors).

    A function that raises hides nothing (chat is not worth breaking a table socket for).
    """
    if user is None or not getattr(user, "is_authenticated", False) or not _hidden_senders:
        return frozenset()
    hidden: set[int] = set()
    for fn in list(_hidden_senders):
        try:
            hidden.update(fn(user.pk))
        except Exception:
            log.exception("hidden-senders function %r failed", fn)
    hidden.discard(user.pk)
    return frozenset(hidden)


def hidden_senders_changed(user_ids: Iterable[int]) -> None:
    """The hidden senders of these users changed: refresh their open table sockets (after the
    current transaction commits; at once outside one)."""
    from django.db import transaction

    from . import broadcast

    ids = sorted({int(i) for i in user_ids if i is not None})
    if ids:
        transaction.on_commit(lambda: broadcast.send_hidden_changed(user_ids=ids))
