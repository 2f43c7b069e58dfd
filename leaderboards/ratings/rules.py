"""Which finished games change ratings: the one rule (``unrated_reason``). The rating task,
the rebuild, the game-over panel, the game page, the archive and the tournament requirement
all read it. And whose ratings a counted game moves (``rated_entries``): bots' ratings
never mix with people's (docs/ratings.md, "Bots")."""
from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from games.models import Ending

from . import skill


@dataclass(frozen=True, slots=True)
class Entry:
    """One player of a game to rate."""

    user_id: int
    seat: int
    place: int
    # False for a person at a game with a bot account: their rating is read as a fixed
    # reference for the bot's update and never changes.
    moves: bool = True


def human_moved(game: Any, seat: int) -> bool:
    return any(a.get("seat") == seat and a.get("source") == "player" for a in game.actions or [])


def left_before_moving(game: Any, player: Any) -> bool:
    """A player who left a game of three or four (``GamePlayer.left``) before a move of their
    own, the computer playing their seat on: nothing of theirs was played, so they are not
    rated for it, as nobody is at a game of two aborted that way (``is_aborted``)."""
    return bool(player.left) and not human_moved(game, player.seat)


def needs_moves(game: Any, players: list[Any]) -> bool:
    """Whether the rule reads ``game.actions`` (a game that ended early, or that somebody
    left): callers that defer the moves load them for these games only."""
    return game.ending != Ending.NORMAL or any(p.left for p in players)


def counted_players(game: Any, players: list[Any]) -> list[Any]:
    """The players a counted game rates: all but those who left before moving."""
    if not any(p.left for p in players):
        return players
    return [p for p in players if not left_before_moving(game, p)]


def is_aborted(game: Any, players: list[Any]) -> bool:
    """A game that ended early (resignation, timeout, abandonment) before every player had made
    a move of their own: nothing was played, so nothing is rated (Lichess's abort). Those who
    left a game of three or four before moving are not counted in ``players`` here: the game
    went on without them, and a later forfeit does not void it for those who played."""
    if game.ending == Ending.NORMAL:
        return False
    return not all(human_moved(game, p.seat) for p in players)


def unrated_reason(game: Any, players: list[Any]) -> str | None:
    """Why ``game`` changes no rating, as shown to players ("ended before both players
    moved"), or None when it counts. ``game`` is a ``Game`` (or the rebuild's row with the
    same fields), ``players`` its ``GamePlayer`` rows (or rows alike).

    Cheap checks first: ``game.actions`` is read only for a rated game between people that
    did not end normally or that somebody left (``needs_moves``)."""
    if not game.rated:
        return "casual game"
    if game.mode not in skill.MODELS:
        return "this mode has no ratings"
    if len(players) < 2:
        return "fewer than two players"
    if any(p.bot_level is not None for p in players):
        return "a computer played"
    if any(p.user_id is None for p in players):
        return "a player's account was deleted"
    if len({p.user_id for p in players}) != len(players):
        return "one player held two seats"
    if game.ending == Ending.NO_SHOW:  # (a tournament's: nothing was played)
        return "a player never came to the table"
    counted = counted_players(game, players)
    if len(counted) < 2 or is_aborted(game, counted):
        everyone = "both players" if len(players) == 2 else "every player"
        return f"ended before {everyone} moved"
    return None


def rated_entries(game: Any, players: list[Any],
                  bot_ids: Collection[int] = ()) -> list[Entry] | None:
    """The players of a counted game, by seat, or None when the game does not count
    (``unrated_reason``). ``bot_ids`` are the ids of bot accounts (any superset will do).
    A player who left before moving has no entry (``counted_players``); the others keep
    their places, which rank them the same among themselves.

    Pools never mix: between people, or between bots, every rating moves; at a game with
    a bot and a person only the bot's moves (``Entry.moves``), the person's rating being
    the fixed reference it is measured against."""
    if unrated_reason(game, players) is not None:
        return None
    players = counted_players(game, players)
    bots = {p.user_id for p in players if p.user_id in bot_ids}
    return [Entry(p.user_id, p.seat, p.place, moves=not bots or p.user_id in bots)
            for p in sorted(players, key=lambda p: p.seat)]


def is_mixed(entries: list[Entry]) -> bool:
    """A game between a bot and a person (some ratings stay fixed)."""
    return not all(e.moves for e in entries)
