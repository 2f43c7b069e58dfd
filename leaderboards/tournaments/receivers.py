"""Tournaments follow live play: a finished game at a tournament table reports its result.

``games`` never imports tournaments; this receiver is connected in ``TournamentsConfig.ready``.
The signal comes after the game's commit; the result is recorded by a Celery task (so the
process that finished the game, often a socket server, does not build the next round).
"""
from __future__ import annotations

import logging

log = logging.getLogger(__name__)


def on_game_finished(sender, *, game_id, table_id, **kwargs):
    from .models import Match
    from .tasks import match_finished

    try:
        if table_id is not None and Match.objects.filter(table_id=table_id).exists():
            match_finished.delay(table_id)
    except Exception:  # a tournament must never break the end of a game
        log.exception("queueing the tournament result of table %s failed", table_id)


def connect() -> None:
    from games import signals

    signals.game_finished.connect(on_game_finished, dispatch_uid="tournaments.game_finished")
