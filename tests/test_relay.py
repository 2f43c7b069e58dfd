"""The embedded default's relay: a worker's frames reach the web process's in-memory layer
only with a valid signature (the end-to-end path is tests/ui/test_run_command.py)."""
from __future__ import annotations

import asyncio
import json
import time

import pytest
from channels.layers import get_channel_layer

from ginsite import relay


async def _call(app, body: bytes, headers, method="POST", path=relay.RELAY_PATH):
    sent = []
    events = [{"type": "http.request", "body": body, "more_body": False}]

    async def receive():
        return events.pop(0) if events else {"type": "http.disconnect"}

    async def send(message):
        sent.append(message)

    async def downstream(scope, receive, send):
        await send({"type": "http.response.start", "status": 299, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    scope = {"type": "http", "path": path, "method": method, "headers": headers}
    await (app or relay.RelayEndpoint(downstream))(scope, receive, send)
    return sent[0]["status"]


def _body(group="table.1", stamp=None, message=None):
    return json.dumps({"t": time.time() if stamp is None else stamp,
                       "items": [{"group": group, "message": message or {"type": "x.y", "n": 1}}]
                       }).encode()


def _signed(body):
    return [(relay.SIGNATURE_HEADER.encode(), relay.sign(body).encode())]


def test_a_signed_message_reaches_the_group_and_nothing_else_does():
    async def run():
        layer = get_channel_layer()
        channel = await layer.new_channel()
        await layer.group_add("table.1", channel)
        body = _body()
        assert await _call(None, body, _signed(body)) == 204
        assert (await asyncio.wait_for(layer.receive(channel), 1))["n"] == 1
        refusals = [
            await _call(None, body, []),  # no signature
            await _call(None, body, _signed(body + b" ")),  # signed another body
            await _call(None, _body(stamp=time.time() - 300), _signed(
                _body(stamp=time.time() - 300))),  # too old (stamps differ: also unsigned)
            await _call(None, b"not json", _signed(b"not json")),
            await _call(None, b"x" * (relay.MAX_BODY + 1), []),
            # a signature outside ASCII is refused too (compare_digest raised: a 500)
            await _call(None, body, [(relay.SIGNATURE_HEADER.encode(), "ü".encode("latin-1"))]),
        ]
        assert refusals == [403] * 6
        assert await _call(None, body, _signed(body), method="GET") == 405
        # every other path goes on to the site
        assert await _call(None, body, _signed(body), path="/play/") == 299
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(layer.receive(channel), 0.2)

    asyncio.run(run())


def test_old_signed_bodies_are_refused():
    body = _body(stamp=time.time() - relay.MAX_AGE - 5)
    assert relay._parse(body, relay.sign(body)) is None
    body = _body()
    assert relay._parse(body, relay.sign(body))[0]["group"] == "table.1"


def test_outside_the_web_process_with_a_relay_url_sends_are_posted(monkeypatch):
    # (this process imports ginsite.asgi in other tests, which marks it the web process)
    monkeypatch.setattr(relay.runtime, "is_web_process", lambda: False)
    layer = relay.RelayChannelLayer(relay_url="http://127.0.0.1:1/internal/relay/")
    assert layer.relaying
    with pytest.raises(relay.RelayError):
        asyncio.run(layer.group_send("table.1", {"type": "x"}))  # nobody listens on port 1
    monkeypatch.setattr(relay.runtime, "is_web_process", lambda: True)
    assert not layer.relaying
    assert not relay.RelayChannelLayer().relaying
