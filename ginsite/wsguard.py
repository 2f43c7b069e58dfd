"""Answers for WebSocket handshakes that fail before a consumer takes them.

Without it a socket path that matches no route (``/ws/table/abc/``) or a session lookup that
fails because the database is down ends in Daphne's HTTP 500 with a traceback, and the browser
sees only 1006 and retries at once. Here such a handshake is accepted and closed at once with a
code the client understands (docs/protocol.md): 4404 no such socket, 4503 the site cannot
serve it right now (the client retries with its backoff).
"""
from __future__ import annotations

import logging

from django.db import DatabaseError
from redis.exceptions import RedisError

log = logging.getLogger(__name__)

NOT_FOUND_CLOSE = 4404
UNAVAILABLE_CLOSE = 4503
INFRASTRUCTURE_ERRORS = (DatabaseError, RedisError, ConnectionError, TimeoutError, OSError)


class HandshakeGuard:
    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "websocket":
            return await self.app(scope, receive, send)
        opened = False

        async def tracking_send(message):
            nonlocal opened
            if message["type"] in ("websocket.accept", "websocket.close"):
                opened = True
            await send(message)

        try:
            return await self.app(scope, receive, tracking_send)
        except ValueError as exc:
            if opened or "No route found" not in str(exc):
                raise
            code = NOT_FOUND_CLOSE
        except INFRASTRUCTURE_ERRORS as exc:
            if opened:
                raise
            log.warning("socket %s refused: %r", scope.get("path"), exc)
            code = UNAVAILABLE_CLOSE
        message = await receive()
        if message.get("type") != "websocket.connect":
            return None
        await send({"type": "websocket.accept"})
        await send({"type": "websocket.close", "code": code})
        return None
