"""What Swiss and round robin share: rounds played one after another, each paired when the
previous one has ended, byes and withdrawals recorded at once, standings by score, Buchholz
and Sonneborn-Berger."""
from __future__ import annotations

import abc

from .. import pairing as P
from ..models import Entry, Match, MatchStatus, Tournament
from . import store
from .base import MatchDesk, Row, TournamentFormat

Pairs = list[tuple[int, int]]


class RoundsFormat(TournamentFormat):
    """A format of rounds; each says how many rounds it plays and how it pairs one
    (abstract: Swiss and round robin)."""

    tiebreak_labels = ("Buchholz", "Sonneborn-Berger")

    @abc.abstractmethod
    def total_rounds(self, t: Tournament) -> int:
        """How many rounds the event plays."""

    @abc.abstractmethod
    def pairings(self, t: Tournament, gone: set[int]) -> tuple[Pairs, list[int]]:
        """Round ``t.round``'s ``(pairs, byes)``; ``gone``: the withdrawn players."""

    def start(self, t: Tournament, desk: MatchDesk) -> None:
        self.pair_round(t, desk)

    def advance(self, t: Tournament, desk: MatchDesk) -> bool:
        while not Match.objects.filter(tournament=t, round=t.round,
                                       status=MatchStatus.PLAYING).exists():
            if t.round >= self.total_rounds(t):
                return True
            t.round += 1
            t.save(update_fields=["round"])
            self.pair_round(t, desk)
        return False

    def pair_round(self, t: Tournament, desk: MatchDesk) -> None:
        """Make round ``t.round`` (byes and forfeits recorded at once)."""
        gone = store.withdrawn(t)
        r = t.round
        pairs, byes = self.pairings(t, gone)
        for i, (a, b) in enumerate(pairs):
            key = f"R{r}-{i}"
            if a in gone or b in gone:
                winner = None if (a in gone and b in gone) else (a if b in gone else b)
                desk.unplayed(t, key=key, round=r, a=a, b=b, winner=winner)
            else:
                desk.open(t, key=key, round=r, a=a, b=b)
        for a in byes:
            desk.bye(t, key=f"R{r}-bye", round=r, player=a)

    def standings(self, t: Tournament, entries: dict[int, Entry]) -> dict[int, Row]:
        return {s.player: (s.score, s.tiebreak1, s.tiebreak2, s.place)
                for s in P.swiss_standings(entries, store.points_results(t))}
