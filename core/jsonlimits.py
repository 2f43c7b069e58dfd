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
"""
from __future__ import annotations

import json
from typing import Any

MAX_DEPTH = 64  # a game record nests 5 levels, a socket frame 3


class JSONTooDeep(ValueError):
    """The text is JSON nested deeper than allowed (the message says how deep)."""


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


def loads(text: str | bytes, *, max_depth: int = MAX_DEPTH) -> Any:
    """``json.loads`` that raises ``JSONTooDeep`` (a ``ValueError``) for a too deep text, and
    ``json.JSONDecodeError`` (also a ``ValueError``) for one that is not JSON."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise JSONTooDeep(f"The JSON is nested more than {max_depth} levels deep.") from None
    if depth_exceeds(value, max_depth):
        raise JSONTooDeep(f"The JSON is nested more than {max_depth} levels deep.")
    return value
