"""Channel-layer groups of a table and the sends to them (called after commit). This module
only carries frames; ``games.frames`` builds them.

Groups: ``table.<id>`` (every connection to the table: state frames, chat, presence) and
``tables.user.<id>`` (every table socket of one user).
"""
from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

log = logging.getLogger(__name__)


def table_group(table_id: int) -> str:
    return f"table.{table_id}"


def user_tables_group(user_id: int) -> str:
    """Every table socket of one logged-in user (for per-user changes such as blocks)."""
    return f"tables.user.{user_id}"


_outbox = threading.local()


@contextmanager
def collected() -> Iterator[list[tuple[str, dict[str, Any]]]]:
    """Inside this block (in a worker thread), sends are collected in the yielded list
    instead of being sent; the caller, already on the event loop, sends them with
    ``send_collected`` after the service returns. A socket's own moves then skip the hop from
    the worker thread back to the loop. Sends happen after commit, so the list holds only
    committed changes, also when the service raises after committing."""
    previous = getattr(_outbox, "messages", None)
    _outbox.messages = messages = []
    try:
        yield messages
    finally:
        _outbox.messages = previous


# Pauses before the second and third tries of a send that failed.
RETRY_DELAYS = (0.1, 0.5)


async def send_collected(
    messages: list[tuple[str, dict[str, Any]]],
) -> list[tuple[str, dict[str, Any]]]:
    """Send each message, trying again twice on failure; returns the ones never sent.

    The layer is not storage: a lost frame is recovered by the clients (a version gap or a
    ``pong`` ahead of what they show makes them ask for a snapshot), and a lost ``state``
    frame stops the turn clock until its player has seen the table
    (``services.table_state_undelivered``)."""
    layer = get_channel_layer()
    if layer is None:
        return []
    failed = []
    for group, message in messages:
        for attempt in range(len(RETRY_DELAYS) + 1):
            try:
                await layer.group_send(group, message)
                break
            except Exception as exc:
                if attempt == len(RETRY_DELAYS):
                    log.error("group_send to %s failed %d times: %s", group, attempt + 1, exc)
                    failed.append((group, message))
                else:
                    await asyncio.sleep(RETRY_DELAYS[attempt])
    return failed


def undelivered_states(failed) -> list[tuple[int, int]]:
    """(table id, version) of the ``state`` frames among messages that were not sent."""
    return [
        (m["table_id"], m["version"]) for _, m in failed
        if m.get("type") == "table.frames" and "table_id" in m
    ]


def _send_all(messages: list[tuple[str, dict[str, Any]]]) -> bool | None:
    """Send to several groups in one trip to the event loop (each ``async_to_sync`` call
    costs a thread hand-off, so one per frame would triple the cost of a move), or hand
    them to the ``collected`` block around this call. True when all were sent, False when
    some failed, None when collected (the collector learns the outcome)."""
    if not messages:
        return True
    outbox = getattr(_outbox, "messages", None)
    if outbox is not None:
        outbox.extend(messages)
        return None
    if get_channel_layer() is None:
        return True
    try:
        return not async_to_sync(send_collected)(messages)
    except Exception:
        log.exception("sending %d messages failed", len(messages))
        return False


def _send(group: str, message: dict[str, Any]) -> bool | None:
    return _send_all([(group, message)])


def send_state(*, table_id: int, version: int, frames: dict[str, dict[str, Any]]) -> bool | None:
    """The ``state`` frames of one version (``games.frames.state_frames``: each human seat's
    own and the spectators').

    They travel as one message to the table's group (one publish per move however many
    seats), and each connection forwards only its own seat's frame (spectators: the public
    one); see ``games.consumers.TableConsumer.table_frames``. The other seats' frames never
    leave the server. Returns as ``_send_all``."""
    message = {"type": "table.frames", "frames": frames, "table_id": table_id,
               "version": version}
    return _send_all([(table_group(table_id), message)])


def send_chat(*, table_id: int, message: dict, sender_id: int | None = None) -> None:
    """A chat line to everyone at the table; ``sender_id`` (not sent to clients) lets each
    connection drop lines from the users hidden from it (``games.hooks``)."""
    _send(table_group(table_id),
          {"type": "table.chat", "message": message, "sender_id": sender_id})


def send_presence(*, table_id: int, table: dict, seats: list[dict]) -> None:
    _send(table_group(table_id), {"type": "table.presence", "table": table, "seats": seats})


def send_hidden_changed(*, user_ids) -> None:
    """Tell these users' table sockets to reload whose chat they hide (and resend a snapshot)."""
    _send_all([(user_tables_group(uid), {"type": "table.hidden_changed"}) for uid in user_ids])
