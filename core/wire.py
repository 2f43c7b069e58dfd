"""The JSON text of the frames the sockets send: one encoder for every frame, and a frame's
text built around the parts that differ from one connection to the next.

The encoder is orjson (compact, UTF-8 text: non-ASCII characters as themselves, where
``json.dumps`` wrote ``\\u`` escapes; the same JSON to any parser). It encodes a state frame
in about 7 us where ``json.dumps`` took about 120 us (``bench/frame_cost.py``).

A table's ``state`` frame is the same for every connection of one audience (a seat, or the
spectators) but for two parts: the clock's time left at the moment of sending and the
connection's ``you``. ``Spliced`` holds the text before and after such a part, encoded once;
``Spliced.text`` puts a connection's parts in. The result is byte for byte what encoding the
whole frame gives (``tests/games/test_frame_text.py``).

``Memo`` keeps the spliced texts of the last messages a process received, so the frames of
one published message are encoded once per audience, not once per socket.
"""
from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import orjson

# Keys that are not strings (an int) become strings, as ``json.dumps`` made them.
_OPTIONS = orjson.OPT_NON_STR_KEYS


def dumps(value: Any) -> str:
    """A frame's JSON text (compact)."""
    return orjson.dumps(value, option=_OPTIONS).decode()


@dataclass(frozen=True, slots=True)
class Spliced:
    """The text of a JSON object with one key's value (``hole``) left open, and room for
    keys appended at its end: ``head`` runs up to ``"hole":``, ``tail`` from the comma after
    the hole's value up to (not including) the closing brace."""

    head: str
    tail: str

    @classmethod
    def around(cls, frame: dict[str, Any], hole: str) -> Spliced:
        keys = list(frame)
        at = keys.index(hole)
        before = dumps({k: frame[k] for k in keys[:at]})
        head = (before[:-1] + "," if at else "{") + dumps(hole) + ":"
        after = dumps({k: frame[k] for k in keys[at + 1:]})
        return cls(head, "," + after[1:-1] if len(after) > 2 else "")

    def text(self, value: Any, **appended: Any) -> str:
        """The object's text with ``value`` in the hole and ``appended`` keys at the end
        (in their order), as ``dumps`` of the whole object would give it."""
        parts = [self.head, dumps(value), self.tail]
        for key, item in appended.items():
            parts.append(f",{dumps(key)}:{dumps(item)}")
        parts.append("}")
        return "".join(parts)


class Memo:
    """The last ``size`` values by key, computed on a miss by the function the caller
    passes (on one event loop: no lock)."""

    def __init__(self, size: int = 256):
        self.size = size
        self._items: OrderedDict[Any, Any] = OrderedDict()

    def get(self, key: Any, make: Any) -> Any:
        items = self._items
        value = items.get(key)
        if value is None:
            value = items[key] = make()
            if len(items) > self.size:
                items.popitem(last=False)
        return value

    def clear(self) -> None:
        self._items.clear()
