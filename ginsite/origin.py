"""The WebSocket Origin check: the page that opens a socket must come from this site.

Channels' ``AllowedHostsOriginValidator`` compares only the Origin's host name with
``ALLOWED_HOSTS``, so a page served by another program on the same machine
(``http://<host>:<other port>``) could open sockets with the player's cookies. Here the Origin's
host and port must also be those the browser asked for (the handshake's ``Host`` header), or
the origin must be listed in ``CSRF_TRUSTED_ORIGINS``. A refused handshake is HTTP 403 (the
browser does not retry it; docs/protocol.md).
"""
from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings

DEFAULT_PORTS = {"http": 80, "https": 443}


def _host_port(value: str, scheme: str) -> tuple[str, int] | None:
    try:
        parsed = urlsplit(f"{scheme}://{value}")
        port = parsed.port
    except ValueError:
        return None
    if not parsed.hostname:
        return None
    return parsed.hostname.lower(), port or DEFAULT_PORTS[scheme]


def origin_allowed(scope) -> bool:
    """True when the handshake's Origin is this site (see the module's docstring). A scope
    without a ``Host`` header (in-process test clients) is left to the allowed-hosts check."""
    headers = dict(scope.get("headers") or [])
    origin = headers.get(b"origin", b"").decode("latin-1").strip()
    if not origin:
        return False
    if origin.rstrip("/") in {o.rstrip("/") for o in settings.CSRF_TRUSTED_ORIGINS}:
        return True
    try:
        parsed = urlsplit(origin)
        origin_port = parsed.port
    except ValueError:
        return False
    if parsed.scheme not in DEFAULT_PORTS or not parsed.hostname:
        return False
    host = headers.get(b"host")
    if host is None:
        return True
    wanted = _host_port(host.decode("latin-1"), parsed.scheme)
    have = (parsed.hostname.lower(), origin_port or DEFAULT_PORTS[parsed.scheme])
    return wanted == have


class SameOriginValidator:
    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] == "websocket" and not origin_allowed(scope):
            message = await receive()
            if message.get("type") == "websocket.connect":
                await send({"type": "websocket.close"})  # before accept: HTTP 403
            return None
        return await self.app(scope, receive, send)
