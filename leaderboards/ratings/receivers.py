"""Ratings follow live play: ``games`` announces finished games, ratings listen (``games``
never imports this app; the receiver is connected in ``LeaderboardsConfig.ready``).

The one receiver pattern for ``game_finished`` (``core.aftercommit``): nothing is done in the
signal; ``leaderboards.game_rated``, an idempotent task keyed by the game id, is queued once
the transaction commits, and a failure to queue is logged, never raised into the end of the
game (the periodic catch-up rates a game whose task was lost). Seats need no receiver: the
ratings at a table reach it in the games app's frames (``frames``).
"""
from __future__ import annotations

from core.aftercommit import task_after_commit


def on_game_finished(sender: object, *, game_id: int, table_id: int | None = None,
                     **kwargs: object) -> None:
    from . import tasks

    task_after_commit(tasks.game_rated, game_id)


def connect() -> None:
    from games import signals

    signals.game_finished.connect(on_game_finished, dispatch_uid="leaderboards.rate")
