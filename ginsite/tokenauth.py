"""Sockets opened by a program with a token (docs/bot-api.md, "Playing").

A handshake that carries ``Authorization: Bearer <token>`` is a bot's: the token must hold
the scope ``bot:play`` (``accounts.api.token_get``: known, not revoked, a bot
account, within its rate limit), and the socket is then the bot user's, whatever cookies it
carries (they are dropped). A browser cannot put that header on a WebSocket, so the Origin
check that protects cookies from other sites' pages does not apply and a program sends no
Origin. A refused token opens the socket and closes it at once with a code:
4401 (unknown or revoked token), 4403 (the token lacks the scope, or its account is not a
bot), 4429 (the token's rate limit, or, for unknown tokens, the address's limit for calls
without a token; wait and reconnect). Handshakes without the header go
the browsers' way (Origin check, session cookie) unchanged. A socket opened with a token
closes (4401) as soon as the token is revoked (``core.sockets``).
"""
from __future__ import annotations

import logging

from channels.db import database_sync_to_async

from accounts.api import ApiError, address_rate_limit, token_get

log = logging.getLogger(__name__)

SCOPE = "bot:play"
CLOSE_FOR_STATUS = {401: 4401, 403: 4403, 429: 4429}


def bearer_token(scope) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header, or None without one (an
    empty or malformed header is an empty token: refused as unknown)."""
    for name, value in scope.get("headers") or []:
        if name.lower() == b"authorization":
            text = value.decode("latin-1").strip()
            kind, _, token = text.partition(" ")
            return token.strip() if kind.lower() == "bearer" else ""
    return None


def _address(scope) -> str:
    """The handshake's client address, as ``accounts.api.client_address`` reads a request's
    (Daphne sets it from the proxy's headers when it runs with ``--proxy-headers``)."""
    client = scope.get("client")
    return str(client[0]) if client and client[0] else "unknown"


def _token_or_count(raw: str, address: str):
    """``token_get``; an unknown or revoked token (401) counts against the address's limit
    for calls without a token, as over HTTP (``accounts.api.authenticate``), so guessing
    tokens by handshakes is limited too: past it, 429 (closed 4429)."""
    try:
        return token_get(raw, SCOPE)
    except ApiError as err:
        if err.status == 401:
            address_rate_limit(address)
        raise


class TokenHandshake:
    """Route token handshakes to ``token_app`` with the bot as ``scope["user"]``; every other
    handshake (and all HTTP) to ``browser_app``."""

    def __init__(self, token_app, browser_app):
        self.token_app = token_app
        self.browser_app = browser_app

    async def __call__(self, scope, receive, send):
        raw = bearer_token(scope) if scope["type"] == "websocket" else None
        if raw is None:
            return await self.browser_app(scope, receive, send)
        try:
            token = await database_sync_to_async(_token_or_count)(raw, _address(scope))
        except ApiError as err:
            message = await receive()
            if message.get("type") == "websocket.connect":
                await send({"type": "websocket.accept"})
                await send({"type": "websocket.close",
                            "code": CLOSE_FOR_STATUS.get(err.status, 4403)})
            return None
        headers = [(k, v) for k, v in scope.get("headers") or []
                   if k.lower() not in (b"cookie", b"authorization")]
        scope = {**scope, "headers": headers, "user": token.user, "api_token": True,
                 "api_token_id": token.pk}
        return await self.token_app(scope, receive, send)
