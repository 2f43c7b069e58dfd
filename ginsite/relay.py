"""The embedded default's channel layer: in-memory in the web process, relayed from the others.

With no ``REDIS_URL`` the site runs one Daphne process and one Celery worker. Channels'
in-memory layer lives inside one process, so frames sent by the worker (the computer's moves,
turn timeouts applied by the sweep, presence) never reached the browsers. This layer closes
that gap without a server:

- In the web process (``ginsite.asgi`` marks it) it *is* the in-memory layer.
- In any other process that knows the web process's address (``GINSITE_RELAY_URL``, set by
  ``scripts/run.sh``), ``send`` and ``group_send`` POST the message to the web process's
  relay endpoint, which hands it to its in-memory layer. The body is signed with an HMAC of the
  site's ``SECRET_KEY`` (shared by both processes) and carries a timestamp, so nothing else on
  the machine can inject frames, and an old body cannot be replayed.
- Without a relay URL (tests, a shell) it is the in-memory layer too.

Delivery is at most once, as with every channel layer: a relay that fails raises, the caller
(``games.broadcast``) retries and logs, and clients recover a lost frame from a snapshot.
With several web processes the embedded default does not apply: set ``REDIS_URL``.
"""
from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import logging
import time
import urllib.error
import urllib.request
from copy import deepcopy
from typing import Any

from channels.layers import InMemoryChannelLayer

from core.secrets_compare import same_secret

from . import runtime

log = logging.getLogger(__name__)

RELAY_PATH = "/internal/relay/"
SIGNATURE_HEADER = "x-ginsite-relay"
MAX_BODY = 1_048_576
MAX_AGE = 60.0  # seconds a signed body stays valid
TIMEOUT = 2.0


def _key() -> bytes:
    from django.conf import settings

    return hashlib.sha256(b"ginsite.relay:" + settings.SECRET_KEY.encode()).digest()


def sign(body: bytes) -> str:
    return hmac.new(_key(), body, hashlib.sha256).hexdigest()


def verify(body: bytes, signature: str) -> bool:
    return same_secret(signature, sign(body))


class RelayError(ConnectionError):
    """The web process did not take the relayed message."""


class RelayChannelLayer(InMemoryChannelLayer):
    """``InMemoryChannelLayer`` that forwards sends to the web process when it is not it."""

    def __init__(self, relay_url: str = "", **kwargs):
        super().__init__(**kwargs)
        self.relay_url = relay_url or ""

    @property
    def relaying(self) -> bool:
        return bool(self.relay_url) and not runtime.is_web_process()

    async def send(self, channel: str, message: dict) -> None:
        if self.relaying:
            await self._relay({"channel": channel, "message": message})
        else:
            await super().send(channel, message)

    async def group_send(self, group: str, message: dict) -> None:
        if self.relaying:
            await self._relay({"group": group, "message": message})
            return
        # The in-memory layer deep-copies a group message once per channel (a move's frames,
        # every seat's, about 0.6 ms each: bench/frame_cost.py); one copy, shared by the
        # group's sockets (which only read it), keeps the sender's later changes out as well.
        assert isinstance(message, dict), "message is not a dict"
        self.require_valid_group_name(group)
        self._clean_expired()
        shared = deepcopy(message)
        expires = time.time() + self.expiry
        for channel in list(self.groups.get(group, {})):
            queue = self.channels.setdefault(
                channel, asyncio.Queue(maxsize=self.get_capacity(channel)))
            try:
                queue.put_nowait((expires, shared))
            except asyncio.QueueFull:  # as the in-memory layer: a full channel misses it
                pass

    async def _relay(self, item: dict[str, Any]) -> None:
        body = json.dumps({"t": time.time(), "items": [item]}, separators=(",", ":")).encode()
        await asyncio.to_thread(self._post, body)

    def _post(self, body: bytes) -> None:
        request = urllib.request.Request(
            self.relay_url, data=body, method="POST",
            headers={"Content-Type": "application/json", SIGNATURE_HEADER: sign(body)},
        )
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
                if response.status != 204:
                    raise RelayError(f"relay answered {response.status}")
        except urllib.error.HTTPError as exc:
            raise RelayError(f"relay answered {exc.code}") from None
        except (urllib.error.URLError, OSError) as exc:
            raise RelayError(f"relay unreachable: {exc}") from None


async def _read_body(receive) -> bytes | None:
    chunks, size = [], 0
    while True:
        event = await receive()
        if event["type"] != "http.request":
            return None
        chunk = event.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY:
            return None
        chunks.append(chunk)
        if not event.get("more_body"):
            return b"".join(chunks)


async def _respond(send, status: int, text: str = "") -> None:
    body = text.encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"text/plain"),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


def _parse(body: bytes, signature: str) -> list[dict] | None:
    if not verify(body, signature):
        return None
    try:
        data = json.loads(body)
        stamp = float(data["t"])
        items = data["items"]
    except (ValueError, KeyError, TypeError):
        return None
    if abs(time.time() - stamp) > MAX_AGE or not isinstance(items, list):
        return None
    good = []
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("message"), dict):
            return None
        if not isinstance(item.get("group", item.get("channel")), str):
            return None
        good.append(item)
    return good


class RelayEndpoint:
    """ASGI wrapper for the HTTP app: ``POST /internal/relay/`` with a valid signature goes to
    this process's channel layer (answer 204); a bad one gets 403 and changes nothing. Every
    other request goes on to ``app``. It sits in front of Django so that host, CSRF and session
    handling never see it."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope.get("path") != RELAY_PATH:
            return await self.app(scope, receive, send)
        if scope.get("method") != "POST":
            return await _respond(send, 405, "POST only")
        from channels.layers import get_channel_layer

        body = await _read_body(receive)
        headers = dict(scope.get("headers") or [])
        signature = headers.get(SIGNATURE_HEADER.encode(), b"").decode("latin-1")
        items = _parse(body, signature) if body is not None else None
        if items is None:
            return await _respond(send, 403, "refused")
        layer = get_channel_layer()
        for item in items:
            if "group" in item:
                await layer.group_send(item["group"], item["message"])
            else:
                await layer.send(item["channel"], item["message"])
        return await _respond(send, 204)
