"""Sends of the leaderboards app to the games app's table groups (after commit).

The table consumer forwards a ``table.ratings`` message as the ``ratings`` frame
(docs/protocol.md): the players' ratings at a table, with each one's change once a rated game
has been rated.
"""
from __future__ import annotations

from typing import Any

from core import channels
from games.broadcast import table_group


def send_ratings(messages: list[tuple[int, dict[str, Any]]]) -> None:
    """Send each ``(table_id, frame)``: the frame's ``players`` list (see ``services``).
    Through ``core.channels`` (retried, then logged): the frame is a courtesy, the pages
    show the same figures."""
    channels.send_now([(table_group(table_id), {"type": "table.ratings", "frame": frame})
                       for table_id, frame in messages])
