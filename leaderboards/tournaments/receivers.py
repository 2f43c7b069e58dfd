"""Tournaments follow live play: a finished game reports its result.

``games`` never imports tournaments; this receiver is connected in ``TournamentsConfig.ready``.
It follows the one receiver pattern for ``game_finished``: nothing is done in the signal
(which may come from a socket server finishing the game); :func:`task_after_commit` queues an
idempotent Celery task keyed by the game id once the transaction commits, and a failure to
queue is logged, never raised into the end of the game. The task
(``tournaments.game_finished``) records the match of that game's table, if any, and builds
the next round; a result whose task was lost is recorded by the sweep.
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


def on_game_finished(sender: object, *, game_id: int, table_id: int | None = None,
                     **kwargs: object) -> None:
    from . import tasks

    task_after_commit(tasks.game_finished, game_id)


def connect() -> None:
    from games import signals

    signals.game_finished.connect(on_game_finished, dispatch_uid="tournaments.game_finished")
