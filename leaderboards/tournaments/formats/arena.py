"""Arena: for a set time, whoever is free (and has a page of the site open) is paired again at
once (``pairing.arena``);
points with the streak bonus, then performance, then games played."""
from __future__ import annotations

from datetime import datetime, timedelta

from django.utils import timezone

from .. import pairing as P
from ..exceptions import TournamentError
from ..models import UNDECIDED, Entry, Format, Match, MatchStatus, Tournament
from .base import MatchDesk, Row, TournamentFormat

MINUTES = (10, 240)


def games(t: Tournament) -> tuple[dict[int, list[tuple[str, int]]], dict[int, int]]:
    """Each player's finished matches in order as (outcome, opponent rating), and their last
    opponent."""
    rating = dict(Entry.objects.filter(tournament=t).values_list("user_id", "rating"))
    played: dict[int, list[tuple[str, int]]] = {}
    last: dict[int, int] = {}
    for a, b, w in Match.objects.filter(tournament=t, status=MatchStatus.FINISHED).order_by(
        "finished_at", "id"
    ).values_list("player_a_id", "player_b_id", "winner_id"):
        for me, them in ((a, b), (b, a)):
            if me is None or them is None:
                continue
            outcome = "win" if w == me else "draw" if w is None else "loss"
            played.setdefault(me, []).append((outcome, rating.get(them) or 0))
            last[me] = them
    return played, last


class Arena(TournamentFormat):
    key = Format.ARENA
    capacity = (2, 1000)
    tiebreak_labels = ("Performance", "Games")
    forfeits_banned = False
    withdraws_absent = True
    paired_by_clock = True

    def options(self, *, capacity: int | None, rounds: int | None,
                duration_minutes: int | None) -> tuple[int | None, int | None]:
        super().options(capacity=capacity, rounds=rounds, duration_minutes=duration_minutes)
        duration_minutes = duration_minutes or 60
        if not MINUTES[0] <= duration_minutes <= MINUTES[1]:
            raise TournamentError(f"An arena lasts {MINUTES[0]} to {MINUTES[1]} minutes.")
        return None, duration_minutes

    def begin(self, t: Tournament, now: datetime) -> None:
        t.round = 0
        t.ends_at = now + timedelta(minutes=t.duration_minutes or 60)

    def advance(self, t: Tournament, desk: MatchDesk) -> bool:
        now = timezone.now()
        playing = Match.objects.filter(tournament=t, status__in=UNDECIDED)
        if t.ends_at is not None and now >= t.ends_at:
            # a pairing still waiting for a player's other game is not played after the end
            Match.objects.filter(tournament=t, status=MatchStatus.WAITING).delete()
            return not playing.exists()
        busy: set[int | None] = set()
        for a, b in playing.values_list("player_a_id", "player_b_id"):
            busy.update((a, b))
        played, last = games(t)
        free = [
            P.ArenaPlayer(e.user_id, P.arena_points(o for o, _ in played.get(e.user_id, ()))[0],
                          e.rating or 0, last.get(e.user_id))
            for e in Entry.objects.filter(tournament=t, withdrawn=False, seed__isnull=False)
            if e.user_id not in busy
        ]
        # only players with a page of the site open: one who entered and went away waits
        # unpaired (0 points) until they come back, instead of costing someone a no-show;
        # one playing people at another table waits until that game is over
        here = desk.present([p.id for p in free]) if len(free) >= 2 else set()
        free = [p for p in free if p.id in here]
        if len(free) < 2:
            return False
        # numbered on from the highest (a waiting pairing dropped leaves a gap: counting would
        # give the next one the number of one that stands)
        number = max((int(k[1:]) for k in Match.objects.filter(tournament=t)
                      .values_list("key", flat=True) if k[1:].isdigit()), default=0)
        # with no game in play nobody else can come free: two free players who just met
        # play again rather than wait for the end (two left alone in an arena)
        for a, b in P.arena_pairings(free, rematch=not (busy - {None})):
            number += 1
            desk.open(t, key=f"A{number}", round=0, a=a, b=b)
        return False

    def standings(self, t: Tournament, entries: dict[int, Entry]) -> dict[int, Row]:
        played, _ = games(t)
        return {s.player: (s.score, s.tiebreak1, s.tiebreak2, s.place)
                for s in P.arena_standings(entries, played)}
