"""Single and double elimination: the bracket from the stored results, opened as its
matches become ready; places by the stage a player was knocked out at."""
from __future__ import annotations

from .. import pairing as P
from ..models import Entry, Format, Match, MatchStatus, Tournament
from . import store
from .base import MatchDesk, Row, TournamentFormat


def _specs(t: Tournament, seeds: int) -> list[P.MatchSpec]:
    return (P.single_elimination if t.format == Format.SINGLE else P.double_elimination)(seeds)


def bracket_specs(t: Tournament) -> list[P.MatchSpec]:
    """The matches of an elimination tournament, before any result (what names a match:
    one query, for the seeds)."""
    return _specs(t, len(store.seeds(t)))


def bracket(t: Tournament) -> tuple[list[P.MatchSpec], dict[str, P.Resolved]]:
    """``(specs, resolved)`` of an elimination tournament from its stored results."""
    seeds = store.seeds(t)
    specs = _specs(t, len(seeds))
    results = dict(Match.objects.filter(tournament=t, status=MatchStatus.FINISHED)
                   .values_list("key", "winner_id"))
    return specs, P.resolve(specs, seeds, results)


class Knockout(TournamentFormat):
    def __init__(self, key: str, capacity: tuple[int, int]):
        self.key = key
        self.capacity = capacity

    def advance(self, t: Tournament, desk: MatchDesk) -> bool:
        while True:
            gone = store.withdrawn(t)
            specs, resolved = bracket(t)
            existing = set(Match.objects.filter(tournament=t).values_list("key", flat=True))
            changed = False
            for m in resolved.values():
                if m.state != "ready" or m.spec.key in existing:
                    continue
                assert m.a is not None and m.b is not None  # "ready": both are known
                if m.a in gone or m.b in gone:
                    winner = m.a if m.a not in gone else m.b
                    desk.unplayed(t, key=m.spec.key, round=m.spec.round, a=m.a, b=m.b,
                                  winner=winner)
                    changed = True
                else:
                    changed |= not desk.open(t, key=m.spec.key, round=m.spec.round, a=m.a,
                                             b=m.b)
            if not changed:
                break
        return P.champion(specs, resolved) is not None

    def standings(self, t: Tournament, entries: dict[int, Entry]) -> dict[int, Row]:
        specs, resolved = bracket(t)
        places = P.elimination_places(specs, resolved)
        wins: dict[int, int] = {}
        for m in resolved.values():
            if m.state == "done" and m.winner is not None:
                wins[m.winner] = wins.get(m.winner, 0) + 1
        return {u: (wins.get(u, 0), 0, 0, places.get(u)) for u in entries}

    def tied_winner(self, t: Tournament, match: Match) -> int | None:
        """A tied game cannot stand in a bracket: the higher seed goes through."""
        seeds = dict(Entry.objects.filter(tournament=t).values_list("user_id", "seed"))
        return min((match.player_a_id, match.player_b_id),
                   key=lambda u: seeds.get(u) or 10**6)

    def banned_winner(self, a: int, b: int, banned: list[int]) -> int | None:
        return a if a not in banned else b if b not in banned else a
