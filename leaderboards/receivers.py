"""Ratings follow live play: ``games`` announces endings and seats, ``leaderboards`` listens.

``games`` never imports ``leaderboards``; these receivers are connected in
``LeaderboardsConfig.ready`` (signals are sent after the commit).
"""
from __future__ import annotations

import logging

from django.db import transaction

log = logging.getLogger(__name__)


def on_game_finished(sender, *, game_id, table_id, **kwargs):
    from . import tasks

    transaction.on_commit(lambda: tasks.game_rated.delay(game_id))


def on_player_seated(sender, *, table_id, user_id, **kwargs):
    """Someone sat down: tell the table everybody's rating (the ``ratings`` frame)."""
    try:
        from . import broadcast, services

        frame = services.table_ratings_frame(table_id=table_id)
        if frame is not None:
            broadcast.send_ratings([(table_id, frame)])
    except Exception:  # ratings at the seats must never break sitting down
        log.exception("ratings frame for table %s failed", table_id)


def connect() -> None:
    from games import signals

    signals.game_finished.connect(on_game_finished, dispatch_uid="leaderboards.rate")
    signals.player_seated.connect(on_player_seated, dispatch_uid="leaderboards.seated")
