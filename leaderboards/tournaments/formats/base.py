"""The one interface every tournament format implements, and what it asks of the services.

A format reads the stored entries and matches, asks the pure ``pairing`` module what comes
next, and writes only through the :class:`MatchDesk` the services hand it (opening a table,
recording a match decided without play, a bye), so formats never import the services and
every step stays safe to run twice: a pairing that exists (unique ``(tournament, key)``) is
not made again.
"""
from __future__ import annotations

import abc
from datetime import datetime
from typing import Protocol

from ..exceptions import TournamentError
from ..models import Entry, Format, Match, Tournament

# A player's row of the standings: (score, tie-break 1, tie-break 2, place).
Row = tuple[float, float, float, int | None]


class MatchDesk(Protocol):
    """The writes a format may ask for (``services.matches.DESK``)."""

    def open(self, t: Tournament, *, key: str, round: int, a: int, b: int) -> bool:
        """A table for ``a`` and ``b`` and the notice to both; False when a player was
        playbanned since entering (withdrawn instead)."""

    def unplayed(self, t: Tournament, *, key: str, round: int, a: int, b: int,
                 winner: int | None) -> None:
        """A match decided without play (a withdrawn player's)."""

    def bye(self, t: Tournament, *, key: str, round: int, player: int) -> None:
        """A bye: a point for ``player`` in a points format."""

    def present(self, user_ids: list[int]) -> set[int]:
        """Those of ``user_ids`` with a page of the site open and no game with people in play
        elsewhere (an arena pairs only them)."""


class TournamentFormat(abc.ABC):
    """Pairings for a round, advancing, standings and tie-breaks of one format. A format must
    say how it advances and how it stands (``advance``, ``standings``: abstract, so a format
    missing either cannot be made); the rest has defaults it overrides where it differs."""

    key: str = ""
    capacity: tuple[int, int] = (2, 2)
    # The names of the standings' two tie-break columns (None: the table shows seeds).
    tiebreak_labels: tuple[str, str] | None = None
    # A match whose player was playbanned since entering is recorded as a forfeit (an arena
    # only stops pairing them).
    forfeits_banned = True
    # A no-show is also withdrawn, so nobody is paired with them again (arena).
    withdraws_absent = False
    # Pairs on the sweep's clock as well as after each result (arena).
    paired_by_clock = False

    @property
    def label(self) -> str:
        return str(Format(self.key).label)

    def options(self, *, capacity: int | None, rounds: int | None,
                duration_minutes: int | None) -> tuple[int | None, int | None]:
        """``(rounds, duration_minutes)`` as stored, after checking the capacity; raises
        :class:`TournamentError` with the message the player sees."""
        low, high = self.capacity
        if capacity is None or not low <= capacity <= high:
            raise TournamentError(f"A {self.label.lower()} takes {low} to {high} players.")
        return None, None

    def begin(self, t: Tournament, now: datetime) -> None:
        """Set the first round (and an end) on the tournament that starts now (unsaved)."""
        t.round = 1

    def start(self, t: Tournament, desk: MatchDesk) -> None:  # noqa: B027 (a real default)
        """Make the first pairings of the event just started. By default none: the first
        ``advance`` (run right after the start) opens the first matches (knockout, arena)."""

    @abc.abstractmethod
    def advance(self, t: Tournament, desk: MatchDesk) -> bool:
        """Open every match that can be played now; True when the event is decided."""

    @abc.abstractmethod
    def standings(self, t: Tournament, entries: dict[int, Entry]) -> dict[int, Row]:
        """Every seeded entrant's row from the stored results."""

    def tied_winner(self, t: Tournament, match: Match) -> int | None:
        """Who goes through a game that ended level (None: a draw)."""
        return None

    def banned_winner(self, a: int, b: int, banned: list[int]) -> int | None:
        """The winner of a match forfeited because of a playban (``banned``: who is)."""
        return a if a not in banned else b if b not in banned else None
