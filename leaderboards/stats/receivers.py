"""Statistics follow finished games: ``games`` announces, ``stats`` listens (games never
imports this app).

The one receiver pattern for ``game_finished`` (``core.aftercommit``): nothing is done in the
signal; ``stats.game_record``, an idempotent task keyed by the game id, is queued once the
transaction commits, and a failure to queue is logged, never raised into the end of the game
(``stats_rebuild`` makes a lost one good).
"""
from __future__ import annotations

from core.aftercommit import task_after_commit


def on_game_finished(sender: object, *, game_id: int, table_id: int | None = None,
                     **kwargs: object) -> None:
    from . import tasks

    task_after_commit(tasks.game_record, game_id)


def connect() -> None:
    from games import signals

    signals.game_finished.connect(on_game_finished, dispatch_uid="stats.game_finished")
