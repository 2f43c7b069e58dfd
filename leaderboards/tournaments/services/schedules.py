"""Scheduled editions (``TournamentSchedule``, staff, in the admin)."""
from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from ..models import Tournament, TournamentSchedule
from .lifecycle import tournament_create


def schedules_run() -> int:
    """Create the next edition of every active schedule as soon as the previous one has
    started, so the lobby always lists one starting soon (entry opens ``entry_minutes``
    before the start). One per start: the unique ``(schedule, starts_at)`` makes a second
    run a no-op."""
    now = timezone.now()
    created = 0
    for sid in TournamentSchedule.objects.filter(active=True).values_list("pk", flat=True):
        with transaction.atomic():
            s = TournamentSchedule.objects.select_for_update().get(pk=sid)
            step = timedelta(hours=max(1, s.every_hours))
            while s.next_start < now + timedelta(minutes=1):
                s.next_start += step  # editions missed while nothing ran are skipped
            if s.next_start - step > now:
                s.save(update_fields=["next_start"])
                continue
            if not Tournament.objects.filter(schedule=s, starts_at=s.next_start).exists():
                tournament_create(
                    user=None, schedule=s, name=s.name, mode=s.mode, format=s.format,
                    target=s.target, capacity=s.capacity, rounds=s.rounds,
                    duration_minutes=s.duration_minutes, seconds_per_turn=s.seconds_per_turn,
                    starts_at=s.next_start,
                    entry_opens_at=s.next_start - timedelta(minutes=max(1, s.entry_minutes)),
                )
                created += 1
            s.next_start += step
            s.save(update_fields=["next_start"])
    return created
