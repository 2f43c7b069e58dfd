"""The per-user notification socket ``/ws/notify/`` (frames in docs/protocol.md).

Thin on purpose: authenticate, join the user's group, take each incoming frame as a typed
message (the framing is ``core.sockets``', shared with the table socket), call a presence
function or a service, answer errors with an ``error`` frame. Delivery of messages,
counts, requests, presence and invitations comes from the services through the channel layer
(``notify.frame`` events to group ``user.<id>``).

A ``send`` frame sends a private message through the same service as the conversation page's
form (:func:`social.services.message_send`: same validation, policy and rate limits), without
the cost of an HTTP request; it is answered by an ``ack`` (or an ``error``) carrying the
client's ``client_id``.
"""
from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Self

from channels.db import database_sync_to_async

from core.sockets import (
    INFRASTRUCTURE_ERRORS,
    BadMessage,
    FramedConsumer,
    Message,
    is_int,
    resolve_user,
    text_id,
)

from . import conf, presence, selectors, services
from .notify import user_group

CLOSE_UNAUTHENTICATED = 4401
# The site cannot serve the socket right now (its database or Redis is down): the client
# reconnects with its usual backoff.
CLOSE_UNAVAILABLE = 4503
CLIENT_ID_MAX = 64

# The closed connections waiting out their grace before they count as gone (a reference, so
# that a pending task is not collected).
_LEAVING: set[asyncio.Task] = set()


# --- client messages -----------------------------------------------------------------------

@dataclass(frozen=True)
class Read(Message):
    conversation: int
    up_to: int | None

    @classmethod
    def parse(cls, data: dict) -> Self:
        conv, up_to = data.get("conversation"), data.get("up_to")
        if not is_int(conv) or conv <= 0 or (
            up_to is not None and (not is_int(up_to) or up_to < 0)
        ):
            raise BadMessage(
                '"read" needs "conversation" (and optionally "up_to") as integers.'
            )
        return cls(conversation=conv, up_to=up_to)


@dataclass(frozen=True)
class Send(Message):
    client_id: str | int
    to: int
    body: str

    @classmethod
    def parse(cls, data: dict) -> Self:
        client_id = data.get("client_id")
        if text_id(client_id, CLIENT_ID_MAX) is None and not (
            is_int(client_id) and 0 <= client_id < 2**53
        ):
            raise BadMessage(
                f'"send" needs a "client_id" (a string of 1-{CLIENT_ID_MAX} characters or an '
                "integer) to match its answer."
            )
        to, body = data.get("to"), data.get("body")
        if not is_int(to) or to <= 0 or not isinstance(body, str):
            raise BadMessage(
                '"send" needs "to" (the recipient\'s user id) and "body" (text).', client_id
            )
        return cls(client_id=client_id, to=to, body=body)


class NotifyConsumer(FramedConsumer):
    user = None
    group = None

    async def connect(self):
        try:
            user = await database_sync_to_async(resolve_user)(self.scope)
        except INFRASTRUCTURE_ERRORS:
            await self.accept()
            await self.close(code=CLOSE_UNAVAILABLE)
            return
        if user is None or not user.is_authenticated or not user.is_active:
            # Accept, then close with the documented code: a refused handshake would only
            # give the browser 1006, and it would reconnect for ever.
            await self.accept()
            await self.close(code=CLOSE_UNAUTHENTICATED)
            return
        self.user = user
        self.group = user_group(user.pk)
        try:
            await self.channel_layer.group_add(self.group, self.channel_name)
            came_online, unread = await self._on_connect()
        except INFRASTRUCTURE_ERRORS:
            self.user = None  # nothing to undo in disconnect
            await self.accept()
            await self.close(code=CLOSE_UNAVAILABLE)
            return
        await self.accept()
        await self._send({
            "type": "hello",
            "unread": unread,
            "heartbeat": conf.get("HEARTBEAT"),
        })
        if came_online:
            await self._broadcast_presence()

    async def _broadcast_presence(self):
        """Tell the user's contacts; if Redis or the database is down they learn it from
        the next heartbeat that finds the user lapsed (presence catches up)."""
        try:
            await database_sync_to_async(presence.broadcast_presence)(self.user.pk)
        except INFRASTRUCTURE_ERRORS:
            pass

    @database_sync_to_async
    def _on_connect(self):
        came_online = presence.presence_connect(self.user.pk, self.channel_name)
        return came_online, selectors.unread_total(self.user.pk)

    async def disconnect(self, code):
        if self.user is None:
            return
        try:
            await self.channel_layer.group_discard(self.group, self.channel_name)
            grace = await database_sync_to_async(presence.presence_leaving)(
                self.user.pk, self.channel_name
            )
        except INFRASTRUCTURE_ERRORS:
            return  # the connection's entry expires with its heartbeat (presence sweep)
        if grace <= 0:
            await self._leave()
            return
        # the next page's socket may come meanwhile: then the user never went offline
        task = asyncio.get_running_loop().create_task(self._leave(after=grace))
        _LEAVING.add(task)
        task.add_done_callback(_LEAVING.discard)

    async def _leave(self, after: float = 0.0):
        """Drop the closed connection (after ``after`` seconds); tell the contacts if it was
        the user's last."""
        if after:
            await asyncio.sleep(after)
        try:
            went_offline = await database_sync_to_async(presence.presence_disconnect)(
                self.user.pk, self.channel_name
            )
        except INFRASTRUCTURE_ERRORS:
            return  # the entry lapses by itself (presence sweep)
        if went_offline:
            await self._broadcast_presence()

    # --- incoming frames -------------------------------------------------------------------

    def flood(self) -> tuple[int, float]:
        return conf.get("FRAMES_PER_MINUTE"), 60.0

    @property
    def max_frame(self) -> int:
        return conf.get("FRAME_MAX_BYTES")

    async def on_ping(self, message: Message):
        """Refresh presence and answer ``pong``. With Redis or the database down the socket
        stays open (a 1011 close made every tournament player reconnect on a Redis restart):
        the heartbeat is skipped, and the next one after the outage registers the connection
        again (Redis lost it) and tells the contacts."""
        try:
            lapsed = await database_sync_to_async(presence.presence_heartbeat)(
                self.user.pk, self.channel_name
            )
        except INFRASTRUCTURE_ERRORS:
            lapsed = False
        await self._send({"type": "pong"})
        if lapsed:
            await self._broadcast_presence()

    async def on_read(self, message: Read):
        try:
            await database_sync_to_async(services.conversation_mark_read)(
                user=self.user, conversation_id=message.conversation, up_to=message.up_to
            )
        except services.SocialError as exc:
            await self._error(exc.code, str(exc))

    async def on_send(self, message: Send):
        try:
            # Off the process's one shared database thread: a message's transaction waits on
            # PostgreSQL (and its commit on the disk), and sends from many sockets may overlap.
            # Each worker thread has its own connection (from the pool with DB_POOL).
            sent = await database_sync_to_async(self._message_send, thread_sensitive=False)(
                message.to, message.body
            )
        except services.SocialError as exc:
            await self._error(exc.code, str(exc), message.client_id)
            return
        await self._send({"type": "ack", "client_id": message.client_id, "message": sent})

    HANDLERS = {
        "ping": (on_ping, Message),
        "read": (on_read, Read),
        "send": (on_send, Send),
    }

    def _message_send(self, recipient_id: int, body: str) -> dict:
        recipient = services.message_recipient(recipient_id)
        message = services.message_send(sender=self.user, recipient=recipient, body=body)
        return services.message_frame(message, self.user)

    # --- outgoing ----------------------------------------------------------------------------

    async def notify_frame(self, event):
        await self._send(event["frame"])

    async def _error(self, code: str, message: str | None = None, client_id=None):
        """An ``error`` frame; it carries ``client_id`` when it answers a ``send`` whose
        ``client_id`` was valid."""
        frame = {"type": "error", "code": code, "message": message or "Refused."}
        if client_id is not None:
            frame["client_id"] = client_id
        await self._send(frame)
