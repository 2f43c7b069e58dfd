"""Channel-layer groups of a table and the sends to them (called after commit). This module
only carries frames; ``games.frames`` builds them.

Groups: ``table.<id>`` (every connection to the table: state frames, chat, presence) and
``tables.user.<id>`` (every table socket of one user).

Sending, retries included, is ``core.channels``'. A service called by a table socket gets
that socket's ``Outbox`` (``outbox=``) and these senders put their messages in it: the
socket sends them itself, on its event loop, after the service returns (its own moves then
skip the hop from the worker thread back to the loop). Sends happen after commit, so the
outbox holds only committed changes, also when the service raises after committing.
"""
from __future__ import annotations

import uuid
from collections.abc import Iterable
from typing import Any

from core import channels
from core.channels import Message, Outbox


def table_group(table_id: int) -> str:
    return f"table.{table_id}"


def user_tables_group(user_id: int) -> str:
    """Every table socket of one logged-in user (for per-user changes such as blocks)."""
    return f"tables.user.{user_id}"


def undelivered_states(failed: Iterable[Message]) -> list[tuple[int, int]]:
    """(table id, version) of the ``state`` frames among messages that were not sent."""
    return [
        (m["table_id"], m["version"]) for _, m in failed
        if m.get("type") == "table.frames" and "table_id" in m
    ]


def _send_all(messages: list[Message]) -> bool:
    """Send now, in one trip to the event loop (``core.channels.send_now``): True when
    all were sent, False when some were not."""
    return channels.send_now(messages)


def _route(messages: list[Message], outbox: Outbox | None) -> bool | None:
    """Put the messages in the caller's ``outbox`` (None: the caller sends them and learns
    the outcome), or send them now (``_send_all``)."""
    if outbox is not None:
        outbox.extend(messages)
        return None
    return _send_all(messages)


def send_state(*, table_id: int, version: int, frames: dict[str, dict[str, Any]],
               outbox: Outbox | None = None) -> bool | None:
    """The ``state`` frames of one version (``games.frames.state_frames``: each human seat's
    own and the spectators').

    They travel as one message to the table's group (one publish per move however many
    seats), and each connection forwards only its own seat's frame (spectators: the public
    one); see ``games.consumers.TableConsumer.table_frames``. The other seats' frames never
    leave the server. ``publish`` names this one message: a process encodes each audience's
    frame of it once, whatever number of its sockets forward it (``core.wire.Memo``).
    Returns as ``_route``."""
    message = {"type": "table.frames", "frames": frames, "table_id": table_id,
               "version": version, "publish": uuid.uuid4().hex}
    return _route([(table_group(table_id), message)], outbox)


def send_chat(*, table_id: int, message: dict, sender_id: int | None = None,
              outbox: Outbox | None = None) -> None:
    """A chat line to everyone at the table; ``sender_id`` (not sent to clients) lets each
    connection drop lines from the users hidden from it (``games.hooks``)."""
    _route([(table_group(table_id),
             {"type": "table.chat", "message": message, "sender_id": sender_id})], outbox)


def send_presence(*, table_id: int, table: dict, seats: list[dict], watchers: int = 0,
                  outbox: Outbox | None = None) -> None:
    _route([(table_group(table_id), {"type": "table.presence", "table": table, "seats": seats,
                                     "watchers": watchers})], outbox)


def send_hidden_changed(*, user_ids) -> None:
    """Tell these users' table sockets to reload whose chat they hide (and resend a snapshot)."""
    _send_all([(user_tables_group(uid), {"type": "table.hidden_changed"}) for uid in user_ids])
