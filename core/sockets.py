"""The framing both sockets share (the table's ``/ws/table/<id>/`` and social's ``/ws/notify/``):
flood close, size limit, JSON parsing, and a handler map from message type to a typed message
and the method that takes it. docs/protocol.md ("Frames and framing errors") is the contract.

A consumer lists ``HANDLERS = {"type": (method, MessageClass)}``; each message class parses
the frame's fields in ``parse`` and raises :class:`BadMessage` when they do not fit, so a
handler only ever sees a checked message. The consumer says how its ``error`` frames look
(``_error``: the table adds the message's ``id`` and the version, notifications the
``client_id``) and how many frames it takes (``max_frame``, ``flood``).

It sits in ``core``, the floor under every app: games' table socket and social's
notification socket both import it, and it imports neither.
"""
from __future__ import annotations

import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Self

from channels.consumer import get_handler_name
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.db import DatabaseError, connection
from django.utils import timezone
from django.utils.crypto import constant_time_compare
from django.utils.functional import LazyObject, empty
from redis.exceptions import RedisError

try:  # Daphne's websockets (autobahn): a send on a socket the client has just closed
    from autobahn.exception import Disconnected as SocketGone
except ImportError:  # pragma: no cover - another ASGI server
    SocketGone = ConnectionError  # type: ignore[misc,assignment]

from . import jsonlimits, wire
from .channels import token_group
from .prepared import prepared_cursor

# Failures of the services under the site, not of the request: answered with ``unavailable``
# (the socket stays open), never a 1011 close.
INFRASTRUCTURE_ERRORS = (DatabaseError, RedisError, ConnectionError, TimeoutError, OSError)
UNAVAILABLE = "The server could not do this right now; try again (same id)."

# Daphne (autobahn) refuses application close codes other than 1000 and 3000-4999: a
# ``close(code=1008)`` (policy violation) raises inside the server and the client only sees
# 1011. 4000 + 1008 keeps the meaning.
FLOOD_CLOSE = 4008
TOKEN_REVOKED_CLOSE = 4401  # as a handshake with an unknown or revoked token
# Client frames nest 2 levels (an object with a list or object inside); deeper is refused.
FRAME_MAX_DEPTH = 8


class BadMessage(Exception):
    """A message of a known type whose fields do not fit it: answered with ``bad_message``.
    ``reply_to`` is the correlation the answer carries (the table's ``id``, a ``send``'s
    ``client_id``) when the message had a valid one."""

    def __init__(self, text: str, reply_to: Any = None):
        super().__init__(text)
        self.reply_to = reply_to


@dataclass(frozen=True)
class Message:
    """A client message without fields (``snapshot``, notifications' ``ping``); subclasses
    add fields and check them in ``parse``."""

    @classmethod
    def parse(cls, data: dict) -> Self:
        return cls()


def scope_user(scope) -> Any:
    """The connection's user, looked up once for its lifetime. Channels' ``AuthMiddleware``
    puts a lazy proxy in ``scope["user"]`` and resolves it before the consumer runs; every
    attribute read through the proxy goes through ``LazyObject.__getattribute__`` (about 2%
    of a table Daphne's Python time under load, read on every move and every frame
    forwarded), so the socket keeps the user object itself. An unresolved proxy, or a plain
    user (a token handshake, a test), is kept as it is."""
    user = scope.get("user")
    wrapped = getattr(user, "_wrapped", None)
    return user if wrapped is None or wrapped is empty else wrapped


def resolve_user(scope) -> Any:
    """The connection's user, resolved here from the session when the handshake came through
    ``SessionUserMiddleware`` (which leaves ``scope["user"]`` unresolved): call it in a
    worker thread, where a socket's first database call runs anyway, so the session row and
    the user row are read on that call's connection instead of in a thread hop of their own
    before the consumer starts (channels' ``AuthMiddleware``: about 12% of a table Daphne's
    time opening sockets, docs/operations.md, "The fourth part of issue 22"). The checks are
    channels' ``get_user``'s: the session's user id and backend, the user from that backend
    (an inactive user is none), and the session's auth hash against the user's (a password
    changed since: the session is flushed and the user is anonymous). A user put in the scope
    by other means (a bot's token handshake, a test) is returned as it is."""
    user = scope.get("user")
    if isinstance(user, UnresolvedUser) and user._wrapped is empty:
        user._wrapped = session_user(scope["session"])
    return scope_user(scope)


class UnresolvedUser(LazyObject):
    """``scope["user"]`` until ``resolve_user`` reads it: any use before that is an error
    (as with channels' ``UserLazyObject``), never a silent anonymous user."""

    def _setup(self):
        raise ValueError("scope['user'] is read before resolve_user() resolved it.")


def session_user(session) -> Any:
    """The user of a Django session, or ``AnonymousUser`` (channels' ``get_user``, sync)."""
    from django.contrib.auth import (
        BACKEND_SESSION_KEY,
        HASH_SESSION_KEY,
        SESSION_KEY,
        get_user_model,
        load_backend,
    )
    from django.contrib.auth.models import AnonymousUser

    user = None
    data = session_data(session)
    try:
        user_id = get_user_model()._meta.pk.to_python(data[SESSION_KEY])
        backend_path = data[BACKEND_SESSION_KEY]
    except KeyError:
        pass
    else:
        if backend_path in settings.AUTHENTICATION_BACKENDS:
            user = backend_user(load_backend(backend_path), user_id)
            if hasattr(user, "get_session_auth_hash"):
                session_hash = data.get(HASH_SESSION_KEY)
                if not (session_hash and constant_time_compare(
                        session_hash, user.get_session_auth_hash())):
                    session.flush()
                    user = None
    return user or AnonymousUser()


def backend_user(backend, user_id) -> Any:
    """``backend.get_user(user_id)``; for a backend that keeps ``ModelBackend``'s (the
    site's two), the same answer with the row read by a written-out SELECT instead of the
    ORM's ``get`` (a quarter of an open's thread call, ``bench/open_service.py``): the user,
    or None when there is no such user or the backend refuses it (an inactive user)."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.backends import ModelBackend

    if type(backend).get_user is not ModelBackend.get_user:
        return backend.get_user(user_id)
    model = get_user_model()
    rows = list(model._default_manager.raw(
        f"SELECT * FROM {connection.ops.quote_name(model._meta.db_table)} WHERE "
        f"{connection.ops.quote_name(model._meta.pk.column)} = %s", [user_id]))
    return rows[0] if rows and backend.user_can_authenticate(rows[0]) else None


def session_data(session) -> dict[str, Any]:
    """What a session holds. With the database backend (the site's) its row is read by one
    written-out SELECT, with the same conditions as the store's own ``load`` (the key, not
    expired) and decoded by the store (a bad signature is an empty session): built by the
    ORM, the read cost most of resolving a socket's user (``bench/open_service.py``). Any
    other backend loads itself."""
    from django.contrib.sessions.backends.db import SessionStore

    store = getattr(session, "_wrapped", session)  # channels' middleware wraps it lazily
    if type(store) is not SessionStore:
        return dict(session.items())
    key = store.session_key  # None when the cookie's key is not a valid one
    if not key:
        return {}
    model = store.model
    expires = model._meta.get_field("expire_date").get_db_prep_value(
        timezone.now(), connection)
    with prepared_cursor() as cursor:
        cursor.execute(
            f"SELECT session_data FROM {connection.ops.quote_name(model._meta.db_table)}"
            " WHERE session_key = %s AND expire_date > %s", [key, expires])
        row = cursor.fetchone()
    return store.decode(row[0]) if row else {}


class SessionUserMiddleware:
    """Channels' ``AuthMiddleware`` without its own database trip: ``scope["user"]`` is an
    ``UnresolvedUser`` that the consumer resolves (``resolve_user``) in its first worker
    thread call. Below channels' ``SessionMiddleware`` (the session is lazy: not read
    until then either). A scope that has a user already (a token handshake) keeps it."""

    def __init__(self, inner):
        self.inner = inner

    async def __call__(self, scope, receive, send):
        if "session" not in scope:
            raise ValueError("SessionUserMiddleware needs channels' SessionMiddleware above it.")
        if "user" not in scope:
            scope = {**scope, "user": UnresolvedUser()}
        return await self.inner(scope, receive, send)


INT_MAX = 2**63 - 1  # the largest value of a 64-bit database column


def is_int(value) -> bool:
    """A JSON integer (``true`` is not one) that a 64-bit database column can hold: a larger
    one, used as an id, would fail in the database (SQLite's OverflowError, PostgreSQL's "out
    of range") instead of being refused as a bad message."""
    return type(value) is int and -INT_MAX - 1 <= value <= INT_MAX


def text_id(value, max_length: int) -> str | None:
    """``value`` if it is a string of 1-``max_length`` characters, else None."""
    return value if isinstance(value, str) and 0 < len(value) <= max_length else None


Handler = Callable[[Any, Any], Awaitable[None]]


class FramedConsumer(AsyncWebsocketConsumer):
    """Checks every incoming frame in this order, answering the first failure with an
    ``error`` frame (the socket stays open) except flooding, which closes it:

    1. flooding: more than ``flood()[0]`` frames within ``flood()[1]`` seconds →
       ``rate_limited``, then close ``4008``;
    2. a binary frame → ``bad_message``;
    3. over ``max_frame`` bytes of UTF-8 → ``too_large``;
    4. not JSON, nested too deep, or not an object → ``bad_json``;
    5. no text ``type``, or one the consumer does not take → ``bad_message``;
    6. fields that do not fit the type (its ``parse``) → ``bad_message``.
    """

    max_frame: int  # bytes of UTF-8
    FLOOD: ClassVar[tuple[int, float]] = (100, 20.0)  # lichess allows a game socket as much
    HANDLERS: ClassVar[dict[str, tuple[Handler, type[Message]]]] = {}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._recent_frames: deque[float] = deque()
        self._closed = False
        # Set once this consumer has closed the socket itself (a revoked token, a flood):
        # from then on nothing is sent. A frame of one of its groups can still reach it after
        # the close (published before it, delivered late through Redis under load), and was
        # passed on after the close frame.
        self._shut = False

    async def send(self, text_data=None, bytes_data=None, close=False):
        """Send, unless the client has just closed the socket: a frame to a socket whose close
        is on its way (a tab shut as the game ended) raised "Attempt to send on a closed
        protocol" through the consumer, a traceback in the log each time. It is dropped: the
        close ends this consumer a moment later. Nothing is sent after this consumer's own
        close (``_shut``)."""
        if self._shut:
            return
        try:
            await super().send(text_data=text_data, bytes_data=bytes_data, close=close)
        except SocketGone:
            self._closed = True

    async def dispatch(self, message):
        # Channels' own dispatch first closes stale database connections on the process's
        # shared sync thread, for every incoming frame and every channel-layer event: a
        # thread hop per frame forwarded (19% of a table Daphne's Python time under load,
        # docs/operations.md "What a move costs"), queued behind whatever that thread is
        # doing. Every database call of these sockets goes through database_sync_to_async,
        # which closes stale connections itself, so forwarding a frame needs no thread.
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def websocket_connect(self, message):
        # A program's socket (opened with an API token, ``ginsite.tokenauth``) listens to its
        # token's group: revoking the token closes it at once (4401), as a new handshake with
        # the token would be refused.
        token_id = self.scope.get("api_token_id")
        if token_id is not None:
            self.groups = [*self.groups, token_group(token_id)]
        await super().websocket_connect(message)

    async def api_token_revoked(self, event):
        if not self._closed:
            self._closed = True
            self._shut = True
            await self.close(code=TOKEN_REVOKED_CLOSE)

    def flood(self) -> tuple[int, float]:
        """(frames, seconds): more frames than this within the window close the socket.
        ``FLOOD`` unless the socket reads its own from settings (the table's
        ``GAMES_WS_FLOOD``, social's per minute)."""
        return self.FLOOD

    async def settle(self) -> None:
        """Before a flood close: finish answering what was already taken (a socket that
        answers some messages off its loop waits for those answers here). Nothing by
        default."""

    async def receive(self, text_data=None, bytes_data=None):
        if self._closed:
            # frames already on their way when the socket was closed (a flood, a revoked
            # token): nothing is sent to a closing socket (Daphne would log "Attempt to send
            # on a closed protocol")
            return
        if self._flooding():
            self._closed = True
            await self.settle()
            await self._error("rate_limited", "Too many messages; the socket closes. Reconnect "
                              "after a pause, and send less.")
            self._shut = True  # (after that last frame)
            await self.close(code=FLOOD_CLOSE)
            return
        if text_data is None:
            await self._error("bad_message", "Send JSON text frames, not binary ones.")
            return
        if len(text_data) > self.max_frame or len(text_data.encode("utf-8")) > self.max_frame:
            await self._error("too_large", f"Frames are at most {self.max_frame} bytes.")
            return
        try:
            data = jsonlimits.loads(text_data, max_depth=FRAME_MAX_DEPTH)
        except jsonlimits.JSONBadCharacter as exc:
            await self._error("bad_message", str(exc))
            return
        except jsonlimits.JSONTooDeep:  # (it read "Frames must be JSON objects.")
            await self._error("bad_json", f"Frames nest at most {FRAME_MAX_DEPTH} levels.")
            return
        except ValueError:  # not JSON
            data = None
        if not isinstance(data, dict):
            await self._error("bad_json", "Frames must be JSON objects.")
            return
        kind = data.get("type")
        entry = self.HANDLERS.get(kind) if isinstance(kind, str) else None
        if entry is None:
            await self._error("bad_message", 'Unknown message type: a frame needs a "type" '
                              "this socket takes (docs/protocol.md).")
            return
        handler, message_class = entry
        try:
            message = message_class.parse(data)
        except BadMessage as exc:
            await self._error("bad_message", str(exc), exc.reply_to)
            return
        try:
            await handler(self, message)
        except INFRASTRUCTURE_ERRORS:
            # The database or Redis failed under a handler that did not expect it: the
            # socket survives (an exception here would close it with 1011).
            await self._error("unavailable", UNAVAILABLE, _reply_to(message))

    def _flooding(self) -> bool:
        limit, window = self.flood()
        now = time.monotonic()
        recent = self._recent_frames
        recent.append(now)
        while recent and recent[0] < now - window:
            recent.popleft()
        return len(recent) > limit

    async def _send(self, frame: dict):
        await self.send(text_data=wire.dumps(frame))

    async def _error(self, code: str, message: str | None = None, reply_to=None):
        """Send an ``error`` frame, with ``id`` when it answers a message that had one;
        a consumer with more to say (a version, another id field) overrides it."""
        frame = {"type": "error", "code": code, "message": message or "Refused."}
        if reply_to is not None:
            frame["id"] = reply_to
        await self._send(frame)


def _reply_to(message: Message):
    """The correlation an answer to ``message`` carries (a table ``id``, a ``client_id``)."""
    return getattr(message, "id", None) or getattr(message, "client_id", None)
