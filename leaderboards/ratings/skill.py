"""The rating maths: a thin wrapper around ``openskill`` (Weng-Lin Bayesian ratings).

Pure Python, no Django: ratings go in as ``(mu, sigma)`` pairs and come out the same way, so
the incremental Celery path and ``manage.py ratings_rebuild`` call exactly the same function
and get bit-identical floats.

One model per mode (each mode's ratings are a separate pool; a Classic rating says nothing
about Basic Rummy). Every model is openskill's Plackett-Luce, rescaled so that a new player
shows the familiar 1500:

* ``mu`` starts at 1500 and ``sigma`` at 350 (Glicko's starting deviation, so the numbers
  read like Lichess's);
* ``beta`` (the spread of one game's performance) is ``sigma / 2``, openskill's default ratio;
* ``tau`` (the uncertainty added before every game, so ratings keep moving) is 3.5, about
  openskill's default proportion of ``mu``.

A game is a ranking of its players by place (1 = first). Equal places are a draw between those
players: a game whose players end level on points, whatever its hands were (a rummy hand that
ends in stalemate scores nothing and is therefore neutral for ratings).

>>> new = new_rating()
>>> display(new)
1500
>>> a, b = rate("classic", [new, new], [1, 2])
>>> display(a) > 1500 > display(b)
True
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

MU = 1500.0
SIGMA = 350.0
BETA = SIGMA / 2
TAU = 3.5
# Below this uncertainty (displayed deviation) a rating is established; 110 is Lichess's
# threshold for its Glicko-2 deviation.
PROVISIONAL_SIGMA = 110.0
# ... or after this many rated games, whichever comes first.
PROVISIONAL_GAMES = 10

MODES = ("classic", "straight", "oklahoma", "hollywood", "rummy")


@dataclass(frozen=True, slots=True)
class Skill:
    """One player's rating in one mode: the mean and the uncertainty (both on the 1500 scale)."""

    mu: float = MU
    sigma: float = SIGMA


def _model() -> PlackettLuce:
    return PlackettLuce(mu=MU, sigma=SIGMA, beta=BETA, tau=TAU, limit_sigma=False)


# One model per mode. They share their parameters today; they are separate objects so a mode
# can be re-tuned alone (followed by ``manage.py ratings_rebuild``).
MODELS: dict[str, PlackettLuce] = {mode: _model() for mode in MODES}


def new_rating() -> Skill:
    return Skill()


def display(skill: Skill) -> int:
    """The one number shown next to a name: the mean, rounded."""
    return int(math.floor(skill.mu + 0.5))


def deviation(skill: Skill) -> int:
    """The uncertainty shown with it (``1500 ± 350``)."""
    return int(math.floor(skill.sigma + 0.5))


def is_provisional(skill: Skill, games: int) -> bool:
    """Provisional (shown with "?") until the deviation falls below ``PROVISIONAL_SIGMA``
    or the player has ``PROVISIONAL_GAMES`` rated games in the mode."""
    return skill.sigma >= PROVISIONAL_SIGMA and games < PROVISIONAL_GAMES


def label(rating: int, provisional: bool) -> str:
    """``"1500?"`` or ``"1612"``."""
    return f"{rating}?" if provisional else str(rating)


def rate(mode: str, skills: Sequence[Skill], places: Sequence[int]) -> list[Skill]:
    """The players' new ratings after one game.

    ``skills[i]`` is player i's rating before the game and ``places[i]`` their place
    (1 = first; equal places are a draw between those players). Two to four players.
    Raises ``ValueError`` for an unknown mode, fewer than two players or mismatched lists.
    """
    if mode not in MODELS:
        raise ValueError(f"unknown mode {mode!r}")
    if len(skills) != len(places):
        raise ValueError("one place per player")
    if len(skills) < 2:
        raise ValueError("a rated game needs at least two players")
    if any(int(p) < 1 for p in places):
        raise ValueError("places start at 1")
    model = MODELS[mode]
    teams = [[model.create_rating([s.mu, s.sigma])] for s in skills]
    result = model.rate(teams, ranks=[float(p) for p in places])
    return [Skill(team[0].mu, team[0].sigma) for team in result]


def win_probability(mode: str, a: Skill, b: Skill) -> float:
    """The chance that ``a`` finishes ahead of ``b`` in a two-player game (for the docs and
    sanity tests)."""
    model = MODELS[mode]
    ra = model.create_rating([a.mu, a.sigma])
    rb = model.create_rating([b.mu, b.sigma])
    return float(model.predict_win([[ra], [rb]])[0])
