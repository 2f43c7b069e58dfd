"""The per-user notification socket ``/ws/notify/`` (frames in docs/protocol.md).

Thin on purpose: authenticate, join the user's group, validate each incoming frame, call a
presence function or a service, answer errors with an ``error`` frame. Delivery of messages,
counts, requests, presence and invitations comes from the services through the channel layer
(``notify.frame`` events to group ``user.<id>``).
"""
from __future__ import annotations

import json
import time

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer

from . import conf, presence, selectors, services
from .notify import user_group

CLOSE_UNAUTHENTICATED = 4401
CLOSE_POLICY = 1008


class NotifyConsumer(AsyncWebsocketConsumer):
    user = None
    group = None

    async def connect(self):
        user = self.scope.get("user")
        if user is None or not user.is_authenticated or not user.is_active:
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
            await self._error("too_large", "Frames may be at most 4 KB.")
            return
        try:
            frame = json.loads(text_data)
        except ValueError:
            await self._error("bad_json", "Frames must be valid JSON.")
            return
        if not isinstance(frame, dict) or not isinstance(frame.get("type"), str):
            await self._error("bad_frame", 'A frame is a JSON object with a "type".')
            return
        handler = {"ping": self._ping, "read": self._read}.get(frame["type"])
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

    # --- outgoing ----------------------------------------------------------------------------

    async def notify_frame(self, event):
        await self._send(event["frame"])

    async def _send(self, frame: dict):
        await self.send(text_data=json.dumps(frame, separators=(",", ":")))

    async def _error(self, code: str, message: str):
        await self._send({"type": "error", "code": code, "message": message})
