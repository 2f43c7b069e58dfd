"""Presence follows live play: ``games`` announces seats and endings, ``social`` listens.

``games`` never imports ``social``; these receivers are connected in ``SocialConfig.ready``.

A finished game clears its players' "playing" mark through the one receiver pattern
(:func:`core.aftercommit.task_after_commit`: an idempotent task keyed by the game id, queued
after the commit). A seat taken or left is written at once, in the signal, on purpose: it is
one cache write (and, for a leaver left with no mark, one query for a seat elsewhere), games
sends the signal after its commit, and the marks of one user must keep the order of their
seats (a queued "sat down" could run after a later "left" and leave them playing at a table
they left). Each is guarded: presence never breaks play.

A waiting table that fills up (``game_started``) tells its other players at once on their
notification sockets (a frame, at most once, like every notification): one may be elsewhere
on the site while their clock runs.
"""
from __future__ import annotations

import logging

from core.aftercommit import task_after_commit

from .presence import (
    presence_clear_playing,
    presence_playing,
    presence_set_playing,
    presence_show_other_tables,
    presence_table_started,
)

logger = logging.getLogger(__name__)


def on_player_seated(sender, *, table_id, user_id, url, private=False, waiting=False,
                     **kwargs):
    if private:
        # A private table is the players' business, even that it is being played: two
        # contacts both "playing", then both back "online" in the same second, told whom
        # they played. Its players show online (or offline) as anywhere else on the site.
        return
    try:
        presence_set_playing(user_id, table_id, url, waiting=waiting)
    except Exception:  # presence must never break play
        logger.exception("presence_set_playing failed for user %s", user_id)


def on_player_left(sender, *, table_id, user_id, **kwargs):
    """The mark of the table left is cleared (a cache write); a player who had no other
    mark but holds a seat elsewhere is shown there (one query, and only then)."""
    try:
        presence_clear_playing(user_id, table_id)
        if presence_playing(user_id) is None:
            presence_show_other_tables([user_id], table_id)
    except Exception:
        logger.exception("presence_clear_playing failed for user %s", user_id)


def on_game_started(sender, *, table_id, user_ids, url, mode, players=(), **kwargs):
    """One channel-layer send, no query: the signal names everything the frame says. The
    players' "waiting at a table" becomes "playing" (one cache write each)."""
    from . import frames, tables
    from .notify import notify_users

    for user_id in players:
        try:
            presence_table_started(user_id, table_id)
        except Exception:  # presence must never break play
            logger.exception("presence_table_started failed for user %s", user_id)
    if not user_ids:
        return
    try:
        name = tables.table_name(dict(tables.mode_choices()).get(mode, mode), table_id)
        notify_users(user_ids, frames.table_started(table_id, url, name))
    except Exception:  # a notification must never break play
        logger.exception("table_start notification failed for table %s", table_id)


def on_game_finished(sender, *, game_id, table_id=None, **kwargs):
    """The one receiver pattern for ``game_finished``: nothing done in the signal, the
    idempotent task ``social.game_finished`` keyed by the game queued after the commit."""
    from . import tasks

    task_after_commit(tasks.game_finished, game_id)


def connect() -> None:
    from games import signals

    signals.player_seated.connect(on_player_seated, dispatch_uid="social.presence.seated")
    signals.player_left.connect(on_player_left, dispatch_uid="social.presence.left")
    signals.game_started.connect(on_game_started, dispatch_uid="social.notify.started")
    signals.game_finished.connect(on_game_finished, dispatch_uid="social.presence.finished")
