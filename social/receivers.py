"""Presence follows live play: ``games`` announces seats and endings, ``social`` listens.

``games`` never imports ``social``; these receivers are connected in ``SocialConfig.ready``.
"""
from __future__ import annotations

import logging

from .presence import presence_clear_playing, presence_set_playing

logger = logging.getLogger(__name__)


def on_player_seated(sender, *, table_id, user_id, url, **kwargs):
    try:
        presence_set_playing(user_id, table_id, url)
    except Exception:  # presence must never break play
        logger.exception("presence_set_playing failed for user %s", user_id)


def on_player_left(sender, *, table_id, user_id, **kwargs):
    try:
        presence_clear_playing(user_id, table_id)
    except Exception:
        logger.exception("presence_clear_playing failed for user %s", user_id)


def on_game_finished(sender, *, game_id, table_id, **kwargs):
    from games.models import GamePlayer
    if table_id is None:  # an uploaded offline game: played at no table here
        return

    try:
        user_ids = GamePlayer.objects.filter(game_id=game_id, user__isnull=False).values_list(
            "user_id", flat=True
        )
        for user_id in user_ids:
            presence_clear_playing(user_id, table_id)
    except Exception:
        logger.exception("clearing presence after game %s failed", game_id)


def connect() -> None:
    from games import signals

    signals.player_seated.connect(on_player_seated, dispatch_uid="social.presence.seated")
    signals.player_left.connect(on_player_left, dispatch_uid="social.presence.left")
    signals.game_finished.connect(on_game_finished, dispatch_uid="social.presence.finished")
