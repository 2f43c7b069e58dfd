"""Sends of the leaderboards app to the games app's table groups (after commit).

The table consumer forwards a ``table.ratings`` message as the ``ratings`` frame
(docs/protocol.md): the players' ratings at a table, with each one's change once a rated game
has been rated.
"""
from __future__ import annotations

import logging
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from games.broadcast import table_group

log = logging.getLogger(__name__)


async def _send_all(messages: list[tuple[int, dict[str, Any]]]) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    for table_id, frame in messages:
        try:
            await layer.group_send(table_group(table_id), {"type": "table.ratings",
                                                           "frame": frame})
        except Exception:  # the frame is a courtesy: the pages show the same figures
            log.exception("ratings frame to table %s failed", table_id)


def send_ratings(messages: list[tuple[int, dict[str, Any]]]) -> None:
    """Send each ``(table_id, frame)``: the frame's ``players`` list (see ``services``)."""
    if messages and get_channel_layer() is not None:
        async_to_sync(_send_all)(messages)
