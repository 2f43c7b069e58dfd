"""Tournament formats: one module each behind one interface (``base.TournamentFormat``), found
by the tournament's ``format`` key (as lila keeps arena and swiss systems apart).

* ``base``: the interface (options and their limits, the start, advancing, standings,
  tie-breaks) and the ``MatchDesk`` of writes a format asks the services for.
* ``knockout``: single and double elimination (and ``bracket`` and ``bracket_specs``, read
  by the page).
* ``rounds``: what Swiss and round robin share; ``swiss``, ``round_robin``.
* ``arena``.
* ``store``: reads of entries and results that several formats need.

The pure algorithms are in ``leaderboards.tournaments.pairing``; the services
(``services.advancing``) call ``format_for(t).advance(t, DESK)`` after every change.
"""
from __future__ import annotations

from ..models import Format, Tournament
from .arena import Arena
from .base import MatchDesk, Row, TournamentFormat
from .knockout import Knockout, bracket, bracket_specs
from .round_robin import RoundRobin
from .swiss import Swiss

FORMATS: dict[str, TournamentFormat] = {
    Format.SINGLE: Knockout(Format.SINGLE, (2, 128)),
    Format.DOUBLE: Knockout(Format.DOUBLE, (2, 64)),
    Format.SWISS: Swiss(),
    Format.ROBIN: RoundRobin(),
    Format.ARENA: Arena(),
}


def format_for(t: Tournament | str) -> TournamentFormat:
    """The format of ``t`` (a tournament or a format key)."""
    return FORMATS[t if isinstance(t, str) else t.format]


__all__ = [
    "FORMATS",
    "MatchDesk",
    "Row",
    "TournamentFormat",
    "bracket",
    "bracket_specs",
    "format_for",
]
