"""Game modes as frozen settings objects. Variants override a few hooks, python-chess style.

>>> get_mode("oklahoma").target
150
>>> get_mode("classic", target=50).target
50
"""

from __future__ import annotations

import abc
import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar

from .cards import Card
from .errors import EngineError

DECK_SIZE = 52

__all__ = [
    "Mode",
    "GinMode",
    "ClassicGin",
    "StraightGin",
    "OklahomaGin",
    "HollywoodGin",
    "RummyMode",
    "MODES",
    "get_mode",
    "gin_mode",
    "rummy_mode",
    "mode_from_dict",
]


@dataclass(frozen=True)
class Mode(abc.ABC):
    """Common base. ``family`` is "gin" or "rummy".

    The class attributes below are how the rules ask a mode what kind of game it is (never
    by its class): they are the same for every mode of a family.
    """

    family: ClassVar[str] = ""
    name: str = ""
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 2
    # The first upcard is offered (non-dealer first) before anybody draws.
    offers_upcard: ClassVar[bool] = False
    # Hands end by knock or gin against a knock limit (shown in views and deal events).
    has_knock_limit: ClassVar[bool] = False
    # Hands end by going out, after melding and laying off on the table turn by turn.
    melds_in_play: ClassVar[bool] = False
    # The game result scores each column with game, line and shutout bonuses.
    column_bonuses: ClassVar[bool] = False

    @property
    def columns(self) -> int:
        """Games scored at once (the score sheet's columns): one unless the mode makes it a
        setting (the gin modes: Hollywood scores three)."""
        return 1

    def to_dict(self) -> dict[str, Any]:
        # The fields one by one: ``asdict`` deep-copies each value, and a table writes its
        # mode with every move (every value here is immutable).
        d = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        for k, v in d.items():
            if isinstance(v, tuple):
                d[k] = [list(x) if isinstance(x, tuple) else x for x in v]
        return d

    @abc.abstractmethod
    def target_for(self, num_players: int) -> int:
        """The game's target score for this many players."""

    @abc.abstractmethod
    def hand_size_for(self, num_players: int) -> int:
        """Cards dealt to each player."""

    def hand_knock_limit(self, upcard: Card) -> int:
        """Knock limit of a hand whose first upcard is ``upcard``; 0 means no knocking."""
        return 0

    def hand_multiplier(self, upcard: Card) -> int:
        """Every score of the hand is multiplied by this."""
        return 1


@dataclass(frozen=True)
class GinMode(Mode):
    """Classic Gin Rummy numbers; the other gin modes subclass and override hooks."""

    family: ClassVar[str] = "gin"
    offers_upcard: ClassVar[bool] = True
    has_knock_limit: ClassVar[bool] = True
    column_bonuses: ClassVar[bool] = True
    name: str = "classic"
    target: int = 100
    knock_limit: int = 10
    knocking: bool = True
    gin_bonus: int = 25
    big_gin: bool = True
    big_gin_bonus: int = 31
    undercut_bonus: int = 25
    game_bonus: int = 100
    line_bonus: int = 25
    shutout_multiplier: int = 2
    hand_size: int = 10
    drawn_hand_stock: int = 2
    columns: int = 1

    def target_for(self, num_players: int) -> int:
        return self.target

    def hand_size_for(self, num_players: int) -> int:
        return self.hand_size

    def hand_knock_limit(self, upcard: Card) -> int:
        """Knock limit of a hand whose first upcard is ``upcard``; 0 means gin only."""
        return self.knock_limit if self.knocking else 0

    def columns_for_win(self, wins: int) -> range:
        """Columns (games) that a player's ``wins``-th hand won is scored in."""
        return range(min(wins, self.columns))


@dataclass(frozen=True)
class ClassicGin(GinMode):
    name: str = "classic"


@dataclass(frozen=True)
class StraightGin(GinMode):
    """No knocking: a hand ends by gin, big gin or a draw."""

    name: str = "straight"
    knocking: bool = False


@dataclass(frozen=True)
class OklahomaGin(GinMode):
    """The first upcard sets the knock limit (ace: gin only); a spade upcard doubles scores."""

    name: str = "oklahoma"
    target: int = 150
    ace_gin_only: bool = True
    spade_multiplier: int = 2

    def hand_knock_limit(self, upcard: Card) -> int:
        if not self.knocking or (upcard.rank == 1 and self.ace_gin_only):
            return 0
        return min(upcard.value, self.knock_limit)

    def hand_multiplier(self, upcard: Card) -> int:
        return self.spade_multiplier if upcard.suit == "S" else 1


@dataclass(frozen=True)
class HollywoodGin(GinMode):
    """Three games scored at once: a player's n-th win goes into games 1..min(n, 3)."""

    name: str = "hollywood"
    columns: int = 3


@dataclass(frozen=True)
class RummyMode(Mode):
    """Basic Rummy for 2-4 players."""

    family: ClassVar[str] = "rummy"
    melds_in_play: ClassVar[bool] = True
    name: str = "rummy"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 4
    targets: tuple[tuple[int, int], ...] = field(default=((2, 100), (3, 150), (4, 200)))
    hand_size_two: int = 10
    hand_size_more: int = 7
    going_rummy_multiplier: int = 2
    reshuffles: int = 1

    def target_for(self, num_players: int) -> int:
        for n, t in self.targets:
            if n == num_players:
                return t
        raise EngineError(f"no rummy target for {num_players} players")

    def hand_size_for(self, num_players: int) -> int:
        return self.hand_size_two if num_players == 2 else self.hand_size_more


MODES: dict[str, Mode] = {
    "classic": ClassicGin(),
    "straight": StraightGin(),
    "oklahoma": OklahomaGin(),
    "hollywood": HollywoodGin(),
    "rummy": RummyMode(),
}


def gin_mode(mode: Mode) -> GinMode:
    """``mode`` as the gin mode it is (the gin family's rules read its settings)."""
    if not isinstance(mode, GinMode):
        raise EngineError(f"{mode.name} is not a gin mode")
    return mode


def rummy_mode(mode: Mode) -> RummyMode:
    """``mode`` as the rummy mode it is (the rummy family's rules read its settings)."""
    if not isinstance(mode, RummyMode):
        raise EngineError(f"{mode.name} is not a rummy mode")
    return mode


def get_mode(name: str | Mode, /, **overrides: Any) -> Mode:
    """The mode called ``name`` with some settings replaced. Unknown names/settings raise."""
    if isinstance(name, Mode):
        base = name
    else:
        found = MODES.get(name)
        if found is None:
            raise EngineError(f"unknown mode {name!r}; choose one of {', '.join(MODES)}")
        base = found
    if not overrides:
        return base
    known = {f.name for f in dataclasses.fields(base)}
    bad = sorted(set(overrides) - known)
    if bad:
        raise EngineError(f"unknown setting(s) {', '.join(bad)} for mode {base.name!r}")
    if "name" in overrides and overrides["name"] != base.name:
        raise EngineError("the mode name cannot be overridden")
    if "targets" in overrides:
        overrides["targets"] = _targets(overrides["targets"])
    for key, value in overrides.items():
        default = getattr(base, key)
        if isinstance(default, bool):
            if not isinstance(value, bool):
                raise EngineError(f"setting {key} must be true or false")
        elif isinstance(default, int):
            if type(value) is not int or not 0 <= value <= SETTING_MAX:
                raise EngineError(f"setting {key} must be a whole number from 0 to {SETTING_MAX}")
    mode = dataclasses.replace(base, **overrides)
    _check_deal(mode)
    return mode


def _check_deal(mode: Mode) -> None:
    """Every player count of ``mode`` gets at least a card each and leaves the upcard: a hand
    size past the deck failed at the deal (an IndexError from an imported record)."""
    for n in range(mode.max_players, mode.min_players - 1, -1):  # most players first
        size = mode.hand_size_for(n)
        if size < 1 or n * size + 1 > DECK_SIZE:
            most = (DECK_SIZE - 1) // n
            raise EngineError(
                f"a hand of {size} cards cannot be dealt to {n} players: from 1 to {most}")


SETTING_MAX = 10_000  # no setting of any mode (targets, bonuses, sizes) comes near it


def _targets(value: Any) -> tuple[tuple[int, int], ...]:
    """Rummy's ``[[players, target], ...]``, checked (it comes from records and forms)."""
    if not isinstance(value, (list, tuple)) or not all(
        isinstance(x, (list, tuple)) and len(x) == 2
        and all(type(n) is int and 0 < n <= SETTING_MAX for n in x) for x in value
    ):
        raise EngineError("setting targets must be [players, target] pairs of whole numbers")
    return tuple(tuple(x) for x in value)


def mode_from_dict(d: dict[str, Any]) -> Mode:
    """Inverse of ``Mode.to_dict``."""
    d = dict(d)
    name = d.pop("name")
    base = get_mode(name)
    changed = {k: v for k, v in d.items() if getattr(base, k, object()) != _norm(v)}
    return get_mode(name, **changed)


def _norm(v: Any) -> Any:
    if isinstance(v, list):
        return tuple(tuple(x) if isinstance(x, list) else x for x in v)
    return v
