"""The table socket's client messages, typed (as lila-ws's ``ClientIn``): each ``parse``
checks one message's fields and raises ``BadMessage`` with the error the client is sent, so
the consumer's handlers only ever see checked messages. docs/protocol.md lists them."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Self

from core.sockets import BadMessage, Message, is_int, text_id

ACTION_ID_MAX = 40


def _echo(data: dict) -> str | None:
    """The ``id`` a refused action's error carries: the client's, when it is an id's text (1
    to ``ACTION_ID_MAX`` characters; longer text is not echoed whole)."""
    return text_id(data.get("id"), ACTION_ID_MAX)


def _reply_id(data: dict) -> str | None:
    """The ``id`` a message's answer carries: none, or the client's text of at most
    ``ACTION_ID_MAX`` characters (a number, a list or 500 characters was answered as if no
    id had come, or echoed whole)."""
    message_id = data.get("id")
    if message_id is None:
        return None
    if text_id(message_id, ACTION_ID_MAX) is None:
        raise BadMessage(f"'id' must be text of 1 to {ACTION_ID_MAX} characters.")
    return message_id


@dataclass(frozen=True)
class Action(Message):
    id: str
    action: str
    version: int

    @classmethod
    def parse(cls, data: dict) -> Self:
        message_id, action, version = data.get("id"), data.get("action"), data.get("version")
        if text_id(message_id, ACTION_ID_MAX) is None or not isinstance(action, str) \
                or not is_int(version):
            raise BadMessage("An action needs text 'action', integer 'version' and a string "
                             f"'id' of 1-{ACTION_ID_MAX} characters.", _echo(data))
        return cls(id=message_id, action=action, version=version)


@dataclass(frozen=True)
class Chat(Message):
    text: str

    @classmethod
    def parse(cls, data: dict) -> Self:
        text = data.get("text")
        if not isinstance(text, str):
            raise BadMessage("A chat message needs 'text'.")
        return cls(text=text)


@dataclass(frozen=True)
class Simple(Message):
    """``resign``, ``claim``, ``leave``: nothing but an optional ``id`` the ``ack`` echoes."""
    id: str | None = None

    @classmethod
    def parse(cls, data: dict) -> Self:
        return cls(id=_reply_id(data))


@dataclass(frozen=True)
class Rematch(Simple):
    accept: bool = True

    @classmethod
    def parse(cls, data: dict) -> Self:
        accept = data.get("accept", True)
        if not isinstance(accept, bool):
            raise BadMessage("'accept' must be true or false.")
        return cls(id=_reply_id(data), accept=accept)


@dataclass(frozen=True)
class Sit(Simple):
    seat: int | None = None

    @classmethod
    def parse(cls, data: dict) -> Self:
        seat = data.get("seat")
        if seat is not None and not is_int(seat):
            raise BadMessage("'seat' must be a seat number.")
        return cls(id=_reply_id(data), seat=seat)


@dataclass(frozen=True, kw_only=True)
class AddBot(Simple):
    seat: int
    level: int

    @classmethod
    def parse(cls, data: dict) -> Self:
        seat, level = data.get("seat"), data.get("level")
        if not (is_int(seat) and is_int(level)):
            raise BadMessage("'add_bot' needs integer 'seat' and 'level'.")
        return cls(id=_reply_id(data), seat=seat, level=level)


@dataclass(frozen=True)
class Ping(Message):
    t: int | float | None = None

    @classmethod
    def parse(cls, data: dict) -> Self:
        # echoed as sent: a number the answer can carry (not an integer past 64 bits, which
        # the frame encoder refuses, nor NaN or infinity), else none
        t = data.get("t")
        ok = is_int(t) or (type(t) is float and math.isfinite(t))
        return cls(t=t if ok else None)
