"""Tournaments follow live play: a finished game reports its result.

``games`` never imports tournaments; this receiver is connected in ``TournamentsConfig.ready``.
It follows the one receiver pattern for ``game_finished``: nothing is done in the signal
(which may come from a socket server finishing the game); :func:`task_after_commit` queues an
idempotent Celery task keyed by the game id once the transaction commits, and a failure to
queue is logged, never raised into the end of the game (the helper lives in
``core.aftercommit``, shared by every app's receiver). The task
(``tournaments.game_finished``) records the match of that game's table, if any, and builds
the next round; a result whose task was lost is recorded by the sweep.
"""
from __future__ import annotations

from core.aftercommit import task_after_commit


def on_game_finished(sender: object, *, game_id: int, table_id: int | None = None,
                     **kwargs: object) -> None:
    from . import tasks

    task_after_commit(tasks.game_finished, game_id)


def connect() -> None:
    from games import signals

    signals.game_finished.connect(on_game_finished, dispatch_uid="tournaments.game_finished")
