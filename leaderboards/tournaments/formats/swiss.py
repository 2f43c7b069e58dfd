"""Swiss: a set number of rounds, each paired by maximum-weight matching on the scores so far
(``pairing.swiss``)."""
from __future__ import annotations

import math
from collections.abc import Collection

from .. import pairing as P
from ..exceptions import TournamentError
from ..models import EndedEarly, Entry, Format, Tournament
from . import store
from .base import MatchDesk
from .rounds import RoundPlan, RoundsFormat

ROUNDS = (1, 15)


class Swiss(RoundsFormat):
    key = Format.SWISS
    capacity = (2, 1000)

    def options(self, *, capacity: int | None, rounds: int | None,
                duration_minutes: int | None) -> tuple[int | None, int | None]:
        super().options(capacity=capacity, rounds=rounds, duration_minutes=duration_minutes)
        assert capacity is not None  # checked above
        most = min(ROUNDS[1], capacity - 1)  # (nobody meets the same player twice)
        rounds = rounds or min(most, max(3, math.ceil(math.log2(capacity)) + 1))
        if not ROUNDS[0] <= rounds <= ROUNDS[1]:
            raise TournamentError(f"A Swiss has {ROUNDS[0]} to {ROUNDS[1]} rounds.")
        if rounds > most:
            # (3 players and 8 rounds was accepted, shown as "8 rounds", and played 2)
            raise TournamentError(
                f"A Swiss for at most {capacity} players has at most {most} "
                f"round{'s' if most != 1 else ''}: nobody plays the same player twice.")
        return rounds, None

    def total_rounds(self, t: Tournament) -> int:
        return min(t.rounds or 1, max(1, len(store.seeds(t)) - 1))

    def start(self, t: Tournament, desk: MatchDesk) -> None:
        # fewer players came than the capacity: the page says how many rounds they play
        total = self.total_rounds(t)
        if total != t.rounds:
            t.rounds_set, t.rounds = t.rounds, total
            t.save(update_fields=["rounds", "rounds_set"])
        super().start(t, desk)

    def pairings(self, t: Tournament, gone: set[int]) -> RoundPlan:
        """A later round that nobody can play (fewer than two players left) or that pairs
        a rematch is not played: the rules promise each round pairs players who have not met
        (lichess's Swiss also ends when no new pairing is left). Withdrawals cause it, or a
        field whose earlier rounds used up the pairings the last one needed."""
        field = players(t, exclude=gone)
        pairs, bye = P.swiss_pairings(field)
        plan = RoundPlan(pairs, [bye] if bye is not None else [])
        if t.round == 1:
            return plan
        if not pairs:
            return plan._replace(ends_early=EndedEarly.PLAYERS)
        met = {p.id: p.opponents for p in field}
        # (the matching puts no rematch where a field without one exists, up to
        # pairing.FULL_LIMIT players; above it, a rematch may be the blocks' and is played)
        if len(field) <= P.FULL_LIMIT and any(b in met[a] for a, b in pairs):
            return plan._replace(ends_early=EndedEarly.REMATCHES)
        return plan


def players(t: Tournament, exclude: Collection[int] = ()) -> list[P.SwissPlayer]:
    """The seeded players with their scores, opponents and byes so far."""
    entries = {e.user_id: e for e in Entry.objects.filter(tournament=t, seed__isnull=False)}
    score = dict.fromkeys(entries, 0.0)
    met: dict[int, set[int]] = {u: set() for u in entries}
    byes: set[int] = set()
    for r in store.points_results(t):
        if r.b is None:
            score[r.a] = score.get(r.a, 0) + 1
            byes.add(r.a)
            continue
        for me, them in ((r.a, r.b), (r.b, r.a)):
            if me in score:
                score[me] += 1 if r.winner == me else 0.5 if r.winner is None else 0
                met[me].add(them)
    return [P.SwissPlayer(u, score[u], e.rating or 0, frozenset(met[u]), u in byes)
            for u, e in entries.items() if u not in exclude]
