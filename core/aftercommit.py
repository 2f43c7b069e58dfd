"""The one receiver pattern for ``games.signals.game_finished`` (docs/architecture.md).

A receiver does nothing in the signal (which may come from a socket server finishing the
game): it calls :func:`task_after_commit`, which queues an idempotent Celery task keyed by the
game id once the current transaction commits (at once outside one). A failure to register or
to queue is logged, never raised into the end of the game; the task's own sweep, or its
documented fallback, makes a lost one good.
"""
from __future__ import annotations

import logging
from typing import Any

from django.db import transaction

log = logging.getLogger(__name__)


def task_after_commit(task: Any, game_id: int) -> None:
    """Queue ``task.delay(game_id)`` once the current transaction commits (at once outside
    one). Robust: neither registering nor queueing can raise into the caller; the task must
    be idempotent, keyed by the game."""

    def send() -> None:
        try:
            task.delay(game_id)
        except Exception:  # a lost task is made good by the task's own sweep
            log.exception("queueing %s for game %s failed", getattr(task, "name", task), game_id)

    try:
        transaction.on_commit(send)
    except Exception:
        log.exception("queueing %s for game %s failed", getattr(task, "name", task), game_id)
