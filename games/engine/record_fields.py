"""The fields of a game record as the readers take them (``record``'s JSON and text forms):
each refused with a ``RecordError`` that names it, in words a person reads."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from .errors import RecordError

__all__ = ["Move", "PLAYER_NAME_MAX", "SEED_BITS", "dealer_of", "field_of", "list_field",
           "move_of", "player_names", "seed_of", "whole_number"]


def whole_number(text: str, name: str) -> int:
    """A header's whole number (int() would take "²", or fail on 4,301 digits with a note
    about Python's limits)."""
    text = text.strip()
    if not re.fullmatch(r"-?[0-9]{1,30}", text):  # (the engine's error: a plain ValueError
        # from a JSON record's "seed": "abc" was reported as a number too long to hold)
        raise RecordError(f"{name} must be a whole number, not {text[:30]!r}")
    return int(text)


# a seed is a signed 64-bit whole number: what a game's seed is stored in (the site draws 53
# random bits, exact as a JavaScript number)
SEED_BITS = 64


def seed_of(value: Any) -> int:
    """A record's seed: a whole number (a JSON number that is one, or the text form's)
    of at most 64 bits, signed."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise RecordError(f"the seed must be a whole number, not {value!r:.40}")
    seed = whole_number(value, "Seed") if isinstance(value, str) else value
    if isinstance(seed, float):
        if not seed.is_integer():
            raise RecordError(f"the seed must be a whole number, not {seed!r}")
        seed = int(seed)
    if not -(2 ** (SEED_BITS - 1)) <= seed < 2 ** (SEED_BITS - 1):
        raise RecordError(f"the seed must fit in {SEED_BITS} bits: {str(seed)[:30]} does not")
    return seed


@dataclass(frozen=True)
class Move:
    """One action in a record: who, what (action text) and when (ms since the epoch)."""

    seat: int
    action: str
    ts: int = 0
    line: int | None = field(default=None, compare=False)  # source line when read from text


# A player's name is shown at every step of a replay: a record of 100,000-character names
# made a 16 MB page of a 109 KB file. The site's usernames have at most 150 characters.
PLAYER_NAME_MAX = 150


def player_names(value: Any) -> list[str]:
    """A record's players: a list of names, each text of at most ``PLAYER_NAME_MAX``
    characters (a list or an object was shown as Python wrote it)."""
    if not isinstance(value, list):
        raise RecordError("the players must be a list of names")
    for i, name in enumerate(value):
        if not isinstance(name, str):
            raise RecordError(f"player {i + 1}'s name must be text")
        if len(name) > PLAYER_NAME_MAX:
            raise RecordError(f"player {i + 1}'s name has {len(name):,} characters (at most "
                              f"{PLAYER_NAME_MAX})")
    return list(value)


def move_of(i: int, m: Any) -> Move:
    """A move of a record's JSON: ``[seat, action]`` or ``[seat, action, ms]``, the seat and
    the time whole numbers of at least 0 (int() took "1", 1.5 and -5)."""
    if not isinstance(m, (list, tuple)) or len(m) not in (2, 3):
        raise RecordError(f"move {i + 1} is not [seat, action, ms]: {m!r:.60}")
    seat, action, ms = m[0], m[1], m[2] if len(m) > 2 else 0
    for value, what in ((seat, "seat"), (ms, "time")):
        if type(value) is not int or value < 0 or value >= 10 ** 18:
            raise RecordError(f"move {i + 1}'s {what} must be a whole number of at least 0, "
                              f"not {value!r:.40}")
    if not isinstance(action, str):
        raise RecordError(f"move {i + 1}'s action must be text, not {action!r:.40}")
    return Move(seat, action, ms)


def field_of(name: str, read: Any, value: Any) -> Any:
    """``read(value)`` for the field ``name`` of a record's JSON: a wrong value is refused
    naming the field (Python's own words, "string indices must be integers", were shown)."""
    try:
        return read(value)
    except RecordError:
        raise
    except KeyError as exc:
        raise RecordError(f"the {name!r} field has no {exc.args[0]!r}") from None
    except (TypeError, ValueError, AttributeError, OverflowError):
        # (OverflowError: a number of 1e400 reads as infinity, which int() refuses)
        raise RecordError(f"the {name!r} field has a wrong value") from None


def list_field(name: str, value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise RecordError(f"the {name!r} field must be a list")
    return value


def dealer_of(value: Any) -> int | None:
    """A record's first dealer: a seat number or null."""
    if value is not None and type(value) is not int:
        raise RecordError(f"dealer must be a seat number, not {value!r}")
    return value
