"""Brackets, pairings and standings of tournaments: pure Python, no Django.

Players are plain ids (ints). Everything here is a function of its arguments, so the
tournament services store results and call these again to learn what comes next. One module
per format, on two shared ones; callers use the names below
(``from leaderboards.tournaments import pairing as P; P.swiss_pairings(...)``):

* ``base``: :class:`PairingError`, :func:`seed_order` (by rating, highest first, ties by
  id), :class:`Result`, :class:`Standing` and the shared places of equal keys.
* ``matching``: maximum-weight matching in blocks of the standings (:data:`BLOCK` players,
  each block exactly; ``bench/tournaments.py``, docs/operations.md "Measured figures").
* ``knockout``: single and double elimination brackets, :func:`resolve`, places.
* ``swiss``: :func:`swiss_pairings` and :func:`swiss_standings` (score, Buchholz,
  Sonneborn-Berger; round robins are scored the same way).
* ``round_robin``: :func:`round_robin` (the circle method; one bye a round when odd).
* ``arena``: :func:`arena_pairings`, :func:`arena_points` (the streak bonus),
  :func:`arena_standings` (points, performance).

The Django side of each format (what to open next from the stored results) is
``leaderboards.tournaments.formats``.
"""
from .arena import (
    ARENA_DRAW,
    ARENA_STREAK_WIN,
    ARENA_WIN,
    ArenaPlayer,
    arena_pairings,
    arena_points,
    arena_standings,
)
from .base import PairingError, Result, Standing, seed_order, shared_places
from .knockout import (
    MatchSpec,
    Resolved,
    Source,
    bracket_size,
    champion,
    double_elimination,
    elimination_places,
    elimination_rounds,
    knocked_out,
    resolve,
    seed_positions,
    single_elimination,
)
from .matching import BLOCK, BYE, FULL_LIMIT, match_all, match_blocks
from .round_robin import round_robin
from .swiss import SwissPlayer, swiss_order, swiss_pairings, swiss_standings

__all__ = [
    "ARENA_DRAW",
    "ARENA_STREAK_WIN",
    "ARENA_WIN",
    "BLOCK",
    "BYE",
    "FULL_LIMIT",
    "ArenaPlayer",
    "MatchSpec",
    "PairingError",
    "Resolved",
    "Result",
    "Source",
    "Standing",
    "SwissPlayer",
    "arena_pairings",
    "arena_points",
    "arena_standings",
    "bracket_size",
    "champion",
    "double_elimination",
    "elimination_places",
    "elimination_rounds",
    "knocked_out",
    "match_all",
    "match_blocks",
    "resolve",
    "round_robin",
    "seed_order",
    "seed_positions",
    "shared_places",
    "single_elimination",
    "swiss_order",
    "swiss_pairings",
    "swiss_standings",
]
