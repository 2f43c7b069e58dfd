"""In-process WebSocket communicators of the table socket and the social socket."""
from __future__ import annotations

import json
from contextlib import asynccontextmanager

from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from ginsite.asgi import application

ORIGIN = (b"origin", b"http://testserver")


def session_cookie(user) -> str:
    """The session cookie of ``user``, logged in."""
    client = Client()
    client.force_login(user)
    return client.cookies["sessionid"].value


async def connect(table_id, user=None, query=""):
    headers = [ORIGIN]
    if user is not None:
        cookie = await database_sync_to_async(session_cookie)(user)
        headers.append((b"cookie", f"sessionid={cookie}".encode()))
    path = f"/ws/table/{table_id}/" + (f"?{query}" if query else "")
    comm = WebsocketCommunicator(application, path, headers=headers)
    connected, _ = await comm.connect()
    assert connected
    return comm


async def recv(comm, kind=None, timeout=3):
    """The next frame (of ``kind`` if given, skipping others)."""
    while True:
        frame = json.loads(await comm.receive_from(timeout=timeout))
        if kind is None or frame["type"] == kind:
            return frame


async def send(comm, obj):
    await comm.send_to(text_data=json.dumps(obj))


@asynccontextmanager
async def two_sockets(table_id, first, second):
    """Both users' table sockets, each past its first snapshot: yields ``(a, b, snapshot of
    a, snapshot of b)``; both are closed on the way out."""
    a, b = await connect(table_id, first), await connect(table_id, second)
    try:
        yield a, b, await recv(a, "snapshot"), await recv(b, "snapshot")
    finally:
        await a.disconnect()
        await b.disconnect()


WAIT = 3  # seconds the social socket helpers wait for a frame


async def open_tab(user=None, origin=True):
    headers = [ORIGIN] if origin else []
    if user is not None:
        sid = await sync_to_async(session_cookie)(user)
        headers.append((b"cookie", f"sessionid={sid}".encode()))
    comm = WebsocketCommunicator(application, "/ws/notify/", headers=headers)
    connected, code = await comm.connect(timeout=WAIT)
    return comm, connected, code


async def open_ready(user):
    comm, connected, _ = await open_tab(user)
    assert connected
    hello = await comm.receive_json_from(timeout=WAIT)
    assert hello["type"] == "hello"
    return comm, hello


async def next_of(comm, kind):
    """The next frame of type ``kind`` (skipping others, e.g. presence)."""
    for _ in range(10):
        frame = await comm.receive_json_from(timeout=WAIT)
        if frame["type"] == kind:
            return frame
    raise AssertionError(f"no {kind} frame")


def post_as(user, url, data):
    """``user``'s POST of ``data`` to ``url`` through the site's pages, asking for JSON (what
    the notification socket's tests compare the socket with)."""
    client = Client()
    client.force_login(user)
    return client.post(url, data, HTTP_ACCEPT="application/json")


def stored_messages() -> tuple[int, int]:
    """How many private messages and conversation memberships are stored."""
    from social.models import ConversationMember, Message

    return Message.objects.count(), ConversationMember.objects.count()
