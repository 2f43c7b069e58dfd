"""Statistics follow finished games: ``games`` announces, ``stats`` listens (games never
imports this app). The signal is sent after the game's transaction commits; the task is
queued after the current transaction (if any) commits too."""
from __future__ import annotations

import logging

from django.db import transaction

log = logging.getLogger(__name__)


def on_game_finished(sender, *, game_id, table_id=None, **kwargs):
    from . import tasks

    def queue():
        try:
            tasks.game_record.delay(game_id)
        except Exception:  # a broker outage must not break the finish; stats_rebuild heals
            log.exception("queueing statistics of game %s failed", game_id)

    transaction.on_commit(queue)


def connect() -> None:
    from games import signals

    signals.game_finished.connect(on_game_finished, dispatch_uid="stats.game_finished")
