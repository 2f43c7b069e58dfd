"""The bot protocol and the helpers every bot shares.

A bot is any object with ``choose(view, legal) -> action``. ``view`` is exactly what the
engine's ``view_for(state, seat)`` gives that seat (JSON-safe, no hidden cards) and ``legal`` is
``legal_actions(state)`` for that seat. Bots may keep memory between calls within a game, but
the levels in this package rebuild everything they know from the view on every call, so they
survive a server restart in the middle of a hand.
"""

from __future__ import annotations

import abc
import random
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from games.engine.actions import Action

__all__ = ["Bot", "BaseBot", "Kinds", "by_kind", "pick"]

# Legal actions grouped by kind (``by_kind``).
Kinds = dict[str, list[Action]]


@runtime_checkable
class Bot(Protocol):
    """What a computer opponent implements. ``reset``/``observe`` are optional."""

    def choose(self, view: dict[str, Any], legal: Sequence[Action]) -> Action: ...


class BaseBot(abc.ABC):
    """Common plumbing: a seeded generator, a name and no-op hooks."""

    name = "bot"

    def __init__(self, rng: random.Random | None = None, **options: Any) -> None:
        self.rng = rng if rng is not None else random.Random(0)
        self.options = options

    def reset(self) -> None:  # noqa: B027 - optional hook, empty on purpose
        """Called at the start of every game (optional hook)."""

    def observe(self, view: dict[str, Any]) -> None:  # noqa: B027 - optional hook
        """Called with the seat's view after moves by others (optional hook, unused here)."""

    @abc.abstractmethod
    def choose(self, view: dict[str, Any], legal: Sequence[Action]) -> Action:
        """One legal action for the seat whose view this is."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


def by_kind(legal: Sequence[Action]) -> Kinds:
    """Legal actions grouped by ``kind`` (``draw:stock`` and ``draw:discard`` are kinds)."""
    out: Kinds = {}
    for a in legal:
        out.setdefault(a.kind, []).append(a)
    return out


def pick(legal: Sequence[Action], text: str) -> Action:
    """The legal action whose text is ``text`` (ValueError if none)."""
    for a in legal:
        if str(a) == text:
            return a
    raise ValueError(f"{text!r} is not among the legal actions")
