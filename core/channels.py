"""The one way the apps send to channel-layer groups, with one retry policy.

The channel layer is not storage and delivers at most once: every frame the apps send is
recovered some other way when lost (a table client sees a version gap and asks for a
snapshot, a lost ``state`` frame stops its player's clock, a notification socket re-reads
its counts in ``hello``). So a send is tried three times, with pauses of ``RETRY_DELAYS``,
and then given up and logged; it never raises into the caller, whose write is committed.

    sent = send_now([(group, message), ...])      # from sync code, after the commit
    failed = await asend([(group, message), ...])  # on the event loop
    send_after_commit(group, message)              # inside a transaction

The retries go by rounds, not message by message: every message is tried, then the failed
ones again after 0.1 s, then after 0.5 s, so however many messages a send holds, a layer
that is down costs at most ``sum(RETRY_DELAYS)`` of waiting. Messages to one group keep
their order: after one of them fails, the later ones to that group wait for the next round.

``Outbox`` is a list of messages a service hands back to its caller instead of sending them
(a socket that made the change sends them itself, from the event loop, before its reply),
with the follow-ups that must wait until they are out (a task whose own frames must come
after them).
"""
from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

log = logging.getLogger(__name__)

Message = tuple[str, dict[str, Any]]  # (group, message)

# Pauses before the second and third tries of the sends that failed.
RETRY_DELAYS = (0.1, 0.5)


def user_group(user_id: int) -> str:
    """The group of a user's notification sockets (``/ws/notify/``, every open tab). Its name
    lives on the floor so that an app below ``social`` (``games``: an analysis's progress)
    can tell a user something without importing ``social``; the consumer forwards a
    ``{"type": "notify.frame", "frame": {...}}`` event's frame as it is (docs/protocol.md)."""
    return f"user.{int(user_id)}"


def token_group(token_id: int) -> str:
    """The group of the sockets a program opened with one API token (docs/bot-api.md): a
    ``{"type": "api_token.revoked"}`` event to it closes them (``core.sockets``)."""
    return f"apitoken.{int(token_id)}"


TOKEN_REVOKED = {"type": "api_token.revoked"}


def notify_event(frame: dict[str, Any]) -> dict[str, Any]:
    """The channel-layer event that carries ``frame`` to a user's notification sockets."""
    return {"type": "notify.frame", "frame": frame}


@dataclass
class Outbox:
    """Channel-layer messages collected, in order, for the caller to send (``asend``),
    and the follow-ups the caller runs once they are sent (``run_after_sent``)."""

    messages: list[Message] = field(default_factory=list)
    after: list[Callable[[], None]] = field(default_factory=list)

    def add(self, group: str, message: dict[str, Any]) -> None:
        self.messages.append((group, message))

    def extend(self, messages: Iterable[Message]) -> None:
        self.messages.extend(messages)

    def take(self) -> list[Message]:
        """The messages collected so far, which the outbox then forgets."""
        taken, self.messages = self.messages, []
        return taken

    def after_sent(self, fn: Callable[[], None]) -> None:
        """Run ``fn`` (sync code) once the messages collected so far have been sent: a
        follow-up whose own sends must come after them (a computer's move, which an eager
        Celery runs on the spot)."""
        self.after.append(fn)

    def run_after_sent(self) -> None:
        """Run the follow-ups (each once), in order; the caller has sent the messages."""
        todo, self.after = self.after, []
        for fn in todo:
            fn()

    def __iter__(self) -> Iterator[Message]:
        return iter(self.messages)

    def __len__(self) -> int:
        return len(self.messages)


async def asend(messages: Iterable[Message]) -> list[Message]:
    """Send each ``(group, message)``, retrying failures (see the module's docstring);
    returns the messages never sent, in their order. No channel layer: nothing to do."""
    layer = get_channel_layer()
    pending = list(messages)
    if layer is None or not pending:
        return []
    for attempt in range(len(RETRY_DELAYS) + 1):
        if attempt:
            await asyncio.sleep(RETRY_DELAYS[attempt - 1])
        failed: list[Message] = []
        blocked: set[str] = set()  # groups with a failed message this round
        errors: dict[str, BaseException] = {}
        for group, message in pending:
            if group in blocked:
                failed.append((group, message))
                continue
            try:
                await layer.group_send(group, message)
            except Exception as exc:
                failed.append((group, message))
                blocked.add(group)
                errors[group] = exc
        pending = failed
        if not pending:
            return []
    for group, exc in errors.items():
        log.error("group_send to %s failed %d times: %s", group, len(RETRY_DELAYS) + 1, exc)
    return pending


def send_now(messages: Iterable[Message]) -> bool:
    """Send from sync code (after the commit) in one trip to the event loop: each
    ``async_to_sync`` call costs a thread hand-off, so the messages of one change go
    together. True when every message was sent (or there is no channel layer), False when
    some were not."""
    messages = list(messages)
    if not messages or get_channel_layer() is None:
        return True
    try:
        return not async_to_sync(asend)(messages)
    except Exception:
        log.exception("sending %d messages failed", len(messages))
        return False


def send_after_commit(group: str, message: dict[str, Any]) -> None:
    """Send one message once the current transaction commits (at once outside one); a
    rollback sends nothing, and a failure never reaches the committed write."""
    transaction.on_commit(lambda: send_now([(group, message)]), robust=True)
