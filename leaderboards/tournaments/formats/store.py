"""Reads of the stored entries and results that more than one format needs."""
from __future__ import annotations

from .. import pairing as P
from ..models import Entry, Match, MatchStatus, Tournament


def seeds(t: Tournament) -> list[int]:
    """The seeded players, seed 1 first."""
    return list(Entry.objects.filter(tournament=t, seed__isnull=False).order_by("seed")
                .values_list("user_id", flat=True))


def withdrawn(t: Tournament) -> set[int]:
    return set(Entry.objects.filter(tournament=t, withdrawn=True)
               .values_list("user_id", flat=True))


def points_results(t: Tournament) -> list[P.Result]:
    """The finished matches and byes of a points format (Swiss, round robin)."""
    out = []
    for a, b, w, status in Match.objects.filter(
        tournament=t, status__in=(MatchStatus.FINISHED, MatchStatus.BYE)
    ).values_list("player_a_id", "player_b_id", "winner_id", "status"):
        if a is None:
            continue
        if status == MatchStatus.BYE:
            out.append(P.Result(a, None, a))
        elif b is not None:
            out.append(P.Result(a, b, w))
    return out
