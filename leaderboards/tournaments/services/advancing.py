"""What comes next after every change: the format opens what can be played, the standings
are stored, and a decided tournament finishes. Always recomputed from the stored results,
so it is safe to run twice."""
from __future__ import annotations

from django.utils import timezone

from .. import frames
from ..formats import format_for
from ..models import Entry, Status, Tournament
from .finals import finals_analyse_after_commit
from .matches import DESK, matches_waiting_open
from .notices import notify_after_commit


def tournament_advance(t: Tournament) -> None:
    """Open every match that can be played now (a waiting one whose players are free
    included); finish the tournament when it is decided."""
    if t.status != Status.RUNNING:
        return
    matches_waiting_open(t)
    if format_for(t).advance(t, DESK):
        tournament_finish(t)
    standings_refresh(t)


def standings_refresh(t: Tournament) -> None:
    """Store every seeded entrant's score, tie-breaks and place (only the rows that change)."""
    entries = {e.user_id: e for e in Entry.objects.filter(tournament=t, seed__isnull=False)}
    if not entries:
        return
    rows = format_for(t).standings(t, entries)
    for u, e in entries.items():
        score, tb1, tb2, place = rows[u]
        if (e.score, e.tiebreak1, e.tiebreak2, e.place) != (score, tb1, tb2, place):
            e.score, e.tiebreak1, e.tiebreak2, e.place = score, tb1, tb2, place
            e.save(update_fields=["score", "tiebreak1", "tiebreak2", "place"])


def tournament_finish(t: Tournament) -> None:
    if t.status != Status.RUNNING:
        return
    t.status = Status.FINISHED
    t.finished_at = timezone.now()
    t.save()
    standings_refresh(t)
    first = Entry.objects.filter(tournament=t, place=1).order_by("seed").first()
    t.winner_id = first.user_id if first else None
    t.save(update_fields=["winner"])
    notify_after_commit(Entry.objects.filter(tournament=t).values_list("user_id", flat=True),
                        frames.finished_notice(t))
    finals_analyse_after_commit(t)
