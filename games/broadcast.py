"""Channel-layer groups of a table and the sends to them (called after commit).

Groups: ``table.<id>.seat.<n>`` (the connections of the player in seat n),
``table.<id>.spectators`` (everyone else) and ``table.<id>`` (all: chat, presence).
"""
from __future__ import annotations

import logging
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from . import play

log = logging.getLogger(__name__)


def seat_group(table_id: int, seat: int) -> str:
    return f"table.{table_id}.seat.{seat}"


def spectators_group(table_id: int) -> str:
    return f"table.{table_id}.spectators"


def table_group(table_id: int) -> str:
    return f"table.{table_id}"


def _send(group: str, message: dict[str, Any]) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(group, message)
    except Exception:  # the channel layer is not storage: a lost frame is recovered by snapshot
        log.exception("group_send to %s failed", group)


def send_state(
    *, table_id: int, version: int, table: dict, seats: list[dict], clock: dict | None,
    state, events=(), last: dict | None = None, human_seats: list[int] | None = None,
) -> None:
    """One ``state`` frame per seat (its own view) and one for the spectators."""
    base = {"type": "state", "version": version, "table": table, "seats": seats, "clock": clock}
    if last is not None:
        base["last"] = last
    targets: list[int | None] = list(human_seats if human_seats is not None else [])
    targets.append(None)
    for seat in targets:
        frame = dict(base)
        frame["view"] = play.view(state, seat) if state is not None else None
        frame["events"] = play.visible_events(events, seat)
        group = spectators_group(table_id) if seat is None else seat_group(table_id, seat)
        _send(group, {"type": "table.frame", "frame": frame})


def send_chat(*, table_id: int, message: dict) -> None:
    _send(table_group(table_id), {"type": "table.chat", "message": message})


def send_presence(*, table_id: int, table: dict, seats: list[dict]) -> None:
    _send(table_group(table_id), {"type": "table.presence", "table": table, "seats": seats})
