"""The per-user notification socket ``/ws/notify/`` (frames in docs/protocol.md).

Thin on purpose: authenticate, join the user's group, validate each incoming frame, call a
presence function or a service, answer errors with an ``error`` frame. Delivery of messages,
counts, requests, presence and invitations comes from the services through the channel layer
(``notify.frame`` events to group ``user.<id>``).

A ``send`` frame sends a private message through the same service as the conversation page's
form (:func:`social.services.message_send`: same validation, policy and rate limits), without
the cost of an HTTP request; it is answered by an ``ack`` (or an ``error``) carrying the
client's ``client_id``.
"""
from __future__ import annotations

import json
import time

from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer

from . import conf, presence, selectors, services
from .notify import user_group

CLOSE_UNAUTHENTICATED = 4401
# Daphne refuses to close with 1008 (only 1000 and 3000-4999 are allowed): 4000 + 1008's
# meaning, as the table sockets do (games.consumers.FLOOD_CLOSE).
CLOSE_POLICY = 4008
CLIENT_ID_MAX = 64


class NotifyConsumer(AsyncWebsocketConsumer):
    user = None
    group = None

    async def connect(self):
        user = self.scope.get("user")
        if user is None or not user.is_authenticated or not user.is_active:
            # Accept, then close with the documented code: a refused handshake would only
            # give the browser 1006, and it would reconnect for ever.
            await self.accept()
            await self.close(code=CLOSE_UNAUTHENTICATED)
            return
        self.user = user
        self.group = user_group(user.pk)
        self._window = (time.monotonic(), 0)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        came_online, unread = await self._on_connect()
        await self._send({
            "type": "hello",
            "unread": unread,
            "heartbeat": conf.get("HEARTBEAT"),
        })
        if came_online:
            await database_sync_to_async(presence.broadcast_presence)(self.user.pk)

    @database_sync_to_async
    def _on_connect(self):
        came_online = presence.presence_connect(self.user.pk, self.channel_name)
        return came_online, selectors.unread_total(self.user.pk)

    async def dispatch(self, message):
        # Channels' own dispatch first closes stale database connections on the process's one
        # shared sync thread, for every incoming frame and every channel-layer event: a
        # thread hop per delivered notification, queued behind whatever that thread is doing.
        # Every database call here goes through database_sync_to_async, which closes stale
        # connections itself, so forwarding a frame needs no thread at all.
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def disconnect(self, code):
        if self.user is None:
            return
        await self.channel_layer.group_discard(self.group, self.channel_name)
        went_offline = await database_sync_to_async(presence.presence_disconnect)(
            self.user.pk, self.channel_name
        )
        if went_offline:
            await database_sync_to_async(presence.broadcast_presence)(self.user.pk)

    # --- incoming frames -------------------------------------------------------------------

    def _over_rate(self) -> bool:
        start, count = self._window
        now = time.monotonic()
        if now - start >= 60:
            start, count = now, 0
        count += 1
        self._window = (start, count)
        return count > conf.get("FRAMES_PER_MINUTE")

    async def receive(self, text_data=None, bytes_data=None):
        if self._over_rate():
            await self._error("rate_limited", "Too many frames; slow down.")
            await self.close(code=CLOSE_POLICY)
            return
        if text_data is None:
            await self._error("bad_frame", "Frames must be JSON text.")
            return
        if len(text_data.encode("utf-8")) > conf.get("FRAME_MAX_BYTES"):
            kb = conf.get("FRAME_MAX_BYTES") // 1024
            await self._error("too_large", f"Frames may be at most {kb} KB.")
            return
        try:
            frame = json.loads(text_data)
        except ValueError:
            await self._error("bad_json", "Frames must be valid JSON.")
            return
        if not isinstance(frame, dict) or not isinstance(frame.get("type"), str):
            await self._error("bad_frame", 'A frame is a JSON object with a "type".')
            return
        handler = {"ping": self._ping, "read": self._read, "send": self._send_message}.get(
            frame["type"]
        )
        if handler is None:
            await self._error("unknown_type", f"Unknown frame type {frame['type'][:30]!r}.")
            return
        await handler(frame)

    async def _ping(self, frame):
        lapsed = await database_sync_to_async(presence.presence_heartbeat)(
            self.user.pk, self.channel_name
        )
        await self._send({"type": "pong"})
        if lapsed:
            await database_sync_to_async(presence.broadcast_presence)(self.user.pk)

    async def _read(self, frame):
        conv = frame.get("conversation")
        up_to = frame.get("up_to")
        if type(conv) is not int or conv <= 0 or (
            up_to is not None and (type(up_to) is not int or up_to < 0)
        ):
            await self._error(
                "bad_frame", '"read" needs "conversation" (and optionally "up_to") as integers.'
            )
            return
        try:
            await database_sync_to_async(services.conversation_mark_read)(
                user=self.user, conversation_id=conv, up_to=up_to
            )
        except services.SocialError as exc:
            await self._error(exc.code, str(exc))

    async def _send_message(self, frame):
        client_id = frame.get("client_id")
        if not (
            (type(client_id) is str and 0 < len(client_id) <= CLIENT_ID_MAX)
            or (type(client_id) is int and 0 <= client_id < 2**53)
        ):
            await self._error(
                "bad_frame",
                f'"send" needs a "client_id" (a string of 1-{CLIENT_ID_MAX} characters or an '
                "integer) to match its answer.",
            )
            return
        to, body = frame.get("to"), frame.get("body")
        if type(to) is not int or to <= 0 or not isinstance(body, str):
            await self._error(
                "bad_frame",
                '"send" needs "to" (the recipient\'s user id) and "body" (text).',
                client_id=client_id,
            )
            return
        try:
            # Off the process's one shared database thread: a message's transaction waits on
            # PostgreSQL (and its commit on the disk), and sends from many sockets may overlap.
            # Each worker thread has its own connection (from the pool with DB_POOL).
            message = await database_sync_to_async(self._message_send, thread_sensitive=False)(
                to, body
            )
        except services.SocialError as exc:
            await self._error(exc.code, str(exc), client_id=client_id)
            return
        await self._send({"type": "ack", "client_id": client_id, "message": message})

    def _message_send(self, recipient_id: int, body: str) -> dict:
        recipient = services.message_recipient(recipient_id)
        message = services.message_send(sender=self.user, recipient=recipient, body=body)
        return services.message_frame(message, self.user)

    # --- outgoing ----------------------------------------------------------------------------

    async def notify_frame(self, event):
        await self._send(event["frame"])

    async def _send(self, frame: dict):
        await self.send(text_data=json.dumps(frame, separators=(",", ":")))

    async def _error(self, code: str, message: str, client_id=None):
        frame = {"type": "error", "code": code, "message": message}
        if client_id is not None:
            frame["client_id"] = client_id
        await self._send(frame)
