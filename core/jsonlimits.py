"""JSON from users, read with limits: a text nested deeper than ``max_depth`` is refused
with a reason instead of raising ``RecursionError`` (which Python's parser does at about a
thousand levels, and which nobody catches as a JSON error).

>>> loads('{"a": [1, 2]}')
{'a': [1, 2]}
>>> loads("[" * 40 + "]" * 40, max_depth=32)
Traceback (most recent call last):
...
core.jsonlimits.JSONTooDeep: The JSON is nested more than 32 levels deep.
>>> loads("[" * 5000 + "]" * 5000)
Traceback (most recent call last):
...
core.jsonlimits.JSONTooDeep: The JSON is nested more than 64 levels deep.
>>> loads('{"name": "a\\\\u0000b"}')  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
core.jsonlimits.JSONBadCharacter: The JSON holds a NUL character (\\u0000) or half of a ...
>>> loads('["\\\\ud83d\\\\ude00", "\\\\\\\\u0000"]')  # a whole pair; a backslash, then u0000
['😀', '\\\\u0000']
"""
from __future__ import annotations

import json
import re
from typing import Any

MAX_DEPTH = 64  # a game record nests 5 levels, a socket frame 3


class JSONTooDeep(ValueError):
    """The text is JSON nested deeper than allowed (the message says how deep)."""


class JSONBadCharacter(ValueError):
    """A string of the JSON (a key or a value) holds a NUL character or half of a surrogate
    pair (``"\\ud800"`` alone): nothing on this site takes either, and the databases
    cannot store them (PostgreSQL refuses NUL in text and both in ``jsonb``; UTF-8 cannot
    encode a lone surrogate at all)."""


BAD_CHARACTER_MESSAGE = ("The JSON holds a NUL character (\\u0000) or half of a surrogate "
                         "pair (\\ud800-\\udfff): nothing here accepts them.")
_BAD_CHARACTER = re.compile("[\x00\ud800-\udfff]")


def has_bad_character(value: Any) -> bool:
    """Does a string anywhere in ``value`` (parsed JSON, keys included) hold a NUL or a lone
    surrogate?"""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if _BAD_CHARACTER.search(item):
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def depth_exceeds(value: Any, max_depth: int) -> bool:
    """True when ``value`` (parsed JSON) nests lists/objects more than ``max_depth`` deep.
    Level by level, so it cannot itself run out of stack."""
    level = [value] if isinstance(value, (dict, list)) else []
    depth = 0
    while level:
        depth += 1
        if depth > max_depth:
            return True
        below = []
        for item in level:
            for child in (item.values() if isinstance(item, dict) else item):
                if isinstance(child, (dict, list)):
                    below.append(child)
        level = below
    return False


class _NotJSONConstant(Exception):
    def __init__(self, name: str):
        super().__init__(name)
        self.name = name


def _refuse_constant(name: str) -> Any:
    raise _NotJSONConstant(name)


# One decoder for every call (json.loads with an option builds a new one each time, on the
# path of every socket frame), refusing NaN and the infinities.
_DECODER = json.JSONDecoder(parse_constant=_refuse_constant)


def loads(text: str | bytes, *, max_depth: int = MAX_DEPTH) -> Any:
    """``json.loads`` that raises ``JSONTooDeep`` (a ``ValueError``) for a too deep text,
    ``JSONBadCharacter`` (also one) for a string with a NUL or a lone surrogate,
    ``UnicodeDecodeError`` (also one) for bytes that are not UTF-8, and
    ``json.JSONDecodeError`` (also one) for a text that is not JSON, Python's ``NaN``,
    ``Infinity`` and ``-Infinity`` among them (an import took a record with a NaN)."""
    if isinstance(text, bytes):
        # strictly (json.loads would let encoded surrogates in); a leading BOM is dropped
        text = text.decode("utf-8-sig")
    try:
        value = _DECODER.decode(text)
    except _NotJSONConstant as exc:
        raise json.JSONDecodeError(f"{exc.name} is not a JSON value", text,
                                   max(text.find(exc.name), 0)) from None
    except RecursionError:
        raise JSONTooDeep(f"The JSON is nested more than {max_depth} levels deep.") from None
    if depth_exceeds(value, max_depth):
        raise JSONTooDeep(f"The JSON is nested more than {max_depth} levels deep.")
    # JSON can only write a NUL or a surrogate as an escape: a text without one needs no walk.
    if "\\u" in text and has_bad_character(value):
        raise JSONBadCharacter(BAD_CHARACTER_MESSAGE)
    return value
