"""The bots: reference panel (Random, Baseline, Gin-waiter) and the Easy/Medium/Hard levels,
and the table of the four levels the site offers (``LEVEL_TABLE``).

Each bot turns the seat's view into ``Knowledge`` (``knowledge.from_view``), asks its gin or
rummy policy, and returns the matching legal action. Nothing else is ever consulted.
"""

from __future__ import annotations

import abc
import random
from collections.abc import Sequence
from typing import Any, NamedTuple

from games.engine.actions import Action
from games.engine.cards import Card, cards_of

from .base import BaseBot, Kinds, by_kind
from .cardmath import card_text
from .gin import GinParams
from .knowledge import Knowledge, from_view
from .policies import (
    BaselinePolicy,
    EasyPolicy,
    GinPolicy,
    GinWaiterPolicy,
    HardPolicy,
    MediumPolicy,
)
from .rummy import OUTS_WEIGHT, RummyPolicy

__all__ = [
    "Level",
    "LEVEL_TABLE",
    "STAND_IN_LEVEL",
    "LEVEL_BY_NUMBER",
    "LEVEL_KEYS",
    "HINT_LEVEL",
    "computer_name",
    "RandomBot",
    "PolicyBot",
    "BaselineBot",
    "GinWaiterBot",
    "EasyBot",
    "MediumBot",
    "HardBot",
]


class Level(NamedTuple):
    number: int  # stored on seats and games (``bot_level``), sent in frames
    key: str  # ``get_bot``'s name of the level
    name: str  # what people read


# The computer levels the site offers, weakest first: the one table that forms, frames, pages
# and statistics read.
LEVEL_TABLE = (
    Level(1, "easy", "Easy"),
    Level(2, "medium", "Medium"),
    Level(3, "hard", "Hard"),
    Level(4, "expert", "Expert"),
)
LEVEL_BY_NUMBER = {level.number: level for level in LEVEL_TABLE}
# The computer whose move a hint is, online and offline (games.services.hints,
# games.local.table.hint): Hard, whose decisions take milliseconds.
HINT_LEVEL = 3
# The computer that plays on in the seat of a person who left a game of three or four that
# goes on without them (games.services.departures, the rules page): Medium, a fair opponent
# for those still playing.
STAND_IN_LEVEL = 2
LEVEL_KEYS = {level.number: level.key for level in LEVEL_TABLE}


def computer_short_name(level: int, number: int = 1) -> str:
    """The label of a computer where a seat's box is narrow (a phone, three or four players):
    its level, numbered as in ``computer_name`` ("Medium", "Medium 2")."""
    known = LEVEL_BY_NUMBER.get(level)
    level_name = known.name if known else str(level)
    return f"{level_name} {number}" if number > 1 else level_name


def computer_name(level: int, number: int = 1) -> str:
    """"Computer (Medium)"; the second Medium computer at a table is "Computer 2 (Medium)"."""
    known = LEVEL_BY_NUMBER.get(level)
    level_name = known.name if known else level
    return f"Computer {number} ({level_name})" if number > 1 else f"Computer ({level_name})"


class RandomBot(BaseBot):
    """Uniformly random legal action."""

    name = "random"

    def choose(self, view: dict[str, Any], legal: Sequence[Action]) -> Action:
        return legal[self.rng.randrange(len(legal))]


class PolicyBot(BaseBot):
    """A bot made of a gin policy and a rummy policy."""

    name = "policy"

    def __init__(self, rng: random.Random | None = None, **options: Any) -> None:
        super().__init__(rng, **options)
        # what one out is worth in a rummy discard (an option for bench/rummy_stalemates.py)
        self.rummy_outs = float(options.get("rummy_outs", OUTS_WEIGHT))
        self.gin = self.make_gin_policy()
        self.rummy = self.make_rummy_policy()

    @abc.abstractmethod
    def make_gin_policy(self) -> GinPolicy:
        """The gin-modes policy of this level."""

    def make_rummy_policy(self) -> RummyPolicy:
        return RummyPolicy(self.rng, outs=self.rummy_outs)

    # ------------------------------------------------------------------ dispatch
    def choose(self, view: dict[str, Any], legal: Sequence[Action]) -> Action:
        if len(legal) == 1:
            return legal[0]
        kinds = by_kind(legal)
        know = from_view(view)
        if know.family == "rummy":
            return self.choose_rummy(view, know, legal, kinds)
        return self.choose_gin(view, know, legal, kinds)

    def choose_gin(
        self, view: dict[str, Any], know: Knowledge, legal: Sequence[Action], kinds: Kinds
    ) -> Action:
        if "take_upcard" in kinds:
            take = self.gin.take(know, know.top)
            return kinds["take_upcard" if take else "pass"][0]
        if "draw:stock" in kinds or "draw:discard" in kinds:
            if "draw:discard" in kinds and know.top and self.gin.take(know, know.top):
                return kinds["draw:discard"][0]
            return (kinds.get("draw:stock") or kinds["draw:discard"])[0]
        if "accept_layoffs" in kinds:
            # every level: the rule book's defender lays off for the lowest deadwood (a skipped
            # lay-off read as a mis-scored hand, not as a beginner's mistake)
            return kinds["accept_layoffs"][0]
        if "discard" in kinds:
            kind, b = self.decide_discard(view, know, legal)
            return _to_action(kind, b, kinds)
        return legal[0]

    def decide_discard(
        self, view: dict[str, Any], know: Knowledge, legal: Sequence[Action]
    ) -> tuple[str, int]:
        return self.gin.play(know, know.hand, know.taken)

    def choose_rummy(
        self, view: dict[str, Any], know: Knowledge, legal: Sequence[Action], kinds: Kinds
    ) -> Action:
        if "draw:stock" in kinds or "draw:discard" in kinds:
            if "draw:discard" in kinds and know.top and self.rummy.take(know, know.top):
                return kinds["draw:discard"][0]
            return (kinds.get("draw:stock") or kinds["draw:discard"])[0]
        placed = bool((view.get("placed") or [False] * know.num_players)[know.seat])
        kind, arg = self.rummy.play(know, placed)
        text = None
        if kind == "meld" and isinstance(arg, int):
            text = "meld:" + ",".join(c.text for c in _cards(arg))
        elif kind == "layoff" and isinstance(arg, tuple):
            b, i = arg
            text = f"layoff:{card_text(b)}>{i}"
        elif kind in ("discard", "go_out") and isinstance(arg, int):
            text = f"{kind}:{card_text(arg)}"
        for a in legal:
            if str(a) == text:
                return a
        # The engine forbids some plays (e.g. stranding the card just taken): stay legal.
        for k in ("discard", "go_out", "meld", "layoff"):
            if k in kinds:
                return kinds[k][0]
        return legal[0]


def _cards(mask: int) -> list[Card]:
    return cards_of(mask)


def _to_action(kind: str, b: int, kinds: Kinds) -> Action:
    if kind == "big_gin" and "big_gin" in kinds:
        return kinds["big_gin"][0]
    if kind in ("gin", "knock", "discard") and b:
        text = f"{kind}:{card_text(b)}"
        for a in kinds.get(kind, ()):
            if str(a) == text:
                return a
        for a in kinds.get("discard", ()):
            if str(a) == f"discard:{card_text(b)}":
                return a
    return kinds["discard"][0]


class BaselineBot(PolicyBot):
    """EAAI 2021 baseline: take a card only if it melds, random min-deadwood discard, knock ASAP."""

    name = "baseline"

    def make_gin_policy(self) -> GinPolicy:
        return BaselinePolicy(self.rng)


class GinWaiterBot(PolicyBot):
    """Baseline that after its first three turns knocks only with gin."""

    name = "ginwaiter"

    def make_gin_policy(self) -> GinPolicy:
        return GinWaiterPolicy(self.rng)


class EasyBot(PolicyBot):
    name = "easy"

    def make_gin_policy(self) -> GinPolicy:
        return EasyPolicy(self.rng)

    def make_rummy_policy(self) -> RummyPolicy:
        return RummyPolicy(self.rng, miss=0.3, bad_discard=0.25, outs=self.rummy_outs)


class MediumBot(PolicyBot):
    name = "medium"

    def make_gin_policy(self) -> GinPolicy:
        return MediumPolicy(self.rng)

    def make_rummy_policy(self) -> RummyPolicy:
        # overlooks a meld or a lay-off one time in ten (Easy: three), so that Hard's care
        # (danger, lay-off takes, going rummy) still tells: with the same outs and no misses
        # the two were even (bench/rummy_stalemates.py --rotate, docs/bots.md)
        return RummyPolicy(self.rng, miss=0.1, outs=self.rummy_outs)


class HardBot(PolicyBot):
    name = "hard"

    def __init__(
        self, rng: random.Random | None = None, params: GinParams | None = None, **options: Any
    ) -> None:
        self.params = params or GinParams()
        super().__init__(rng, **options)

    def make_gin_policy(self) -> GinPolicy:
        return HardPolicy(self.rng, self.params)

    def make_rummy_policy(self) -> RummyPolicy:
        return RummyPolicy(self.rng, careful=True, hold=True, outs=self.rummy_outs)
