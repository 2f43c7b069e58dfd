"""What Swiss and round robin share: rounds played one after another, each paired when the
previous one has ended, byes and withdrawals recorded at once, standings by score, Buchholz
and Sonneborn-Berger."""
from __future__ import annotations

import abc
from typing import NamedTuple

from .. import pairing as P
from ..models import UNDECIDED, Entry, Match, Tournament
from . import store
from .base import MatchDesk, Row, TournamentFormat

Pairs = list[tuple[int, int]]


class RoundPlan(NamedTuple):
    """A round's pairs and byes, or why it is not played and the event ends after the rounds
    played (``ends_early``, an ``EndedEarly`` value; "" to play it)."""

    pairs: Pairs
    byes: list[int]
    ends_early: str = ""


class RoundsFormat(TournamentFormat):
    """A format of rounds; each says how many rounds it plays and how it pairs one
    (abstract: Swiss and round robin)."""

    tiebreak_labels = ("Buchholz", "Sonneborn-Berger")

    @abc.abstractmethod
    def total_rounds(self, t: Tournament) -> int:
        """How many rounds the event plays."""

    @abc.abstractmethod
    def pairings(self, t: Tournament, gone: set[int]) -> RoundPlan:
        """Round ``t.round``'s plan; ``gone``: the withdrawn players."""

    def start(self, t: Tournament, desk: MatchDesk) -> None:
        gone = store.withdrawn(t)
        self.record_round(t, desk, gone, self.pairings(t, gone))

    def advance(self, t: Tournament, desk: MatchDesk) -> bool:
        while not Match.objects.filter(tournament=t, round=t.round,
                                       status__in=UNDECIDED).exists():
            if t.round >= self.total_rounds(t):
                return True
            gone = store.withdrawn(t)
            t.round += 1
            plan = self.pairings(t, gone)
            if plan.ends_early:
                t.round -= 1
                # the page says it: "3 rounds played: 5 were set; every pairing left was a
                # rematch" (a cut at the start already kept the rounds set)
                t.rounds_set, t.rounds = t.rounds_set or t.rounds, t.round
                t.ended_early = plan.ends_early
                t.save(update_fields=["rounds", "rounds_set", "ended_early"])
                return True
            t.save(update_fields=["round"])
            self.record_round(t, desk, gone, plan)
        return False

    def record_round(self, t: Tournament, desk: MatchDesk, gone: set[int],
                     plan: RoundPlan) -> None:
        """Make round ``t.round`` from its plan (forfeits of the withdrawn and byes recorded
        at once). A round robin's schedule keeps a withdrawn player's bye: it scores no
        point (they had kept scoring one a round, and lifting their opponents' Buchholz)."""
        r = t.round
        for i, (a, b) in enumerate(plan.pairs):
            key = f"R{r}-{i}"
            if a in gone or b in gone:
                winner = None if (a in gone and b in gone) else (a if b in gone else b)
                desk.unplayed(t, key=key, round=r, a=a, b=b, winner=winner)
            else:
                desk.open(t, key=key, round=r, a=a, b=b)
        for a in plan.byes:
            if a not in gone:
                desk.bye(t, key=f"R{r}-bye", round=r, player=a)

    def standings(self, t: Tournament, entries: dict[int, Entry]) -> dict[int, Row]:
        return {s.player: (s.score, s.tiebreak1, s.tiebreak2, s.place)
                for s in P.swiss_standings(entries, store.points_results(t))}
