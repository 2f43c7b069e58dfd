"""Two workers start the same tournament at the same moment (PostgreSQL: real row locks):
it starts once, with one table per match."""
from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.db import connection, connections
from django.utils import timezone

from games.models import Room, Table
from games.rooms import ensure_default_rooms
from leaderboards.tournaments import services as S
from leaderboards.tournaments.models import Match, Tournament

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif("connection.vendor != 'postgresql'"),
]


def test_two_simultaneous_starts_start_once(make_user):
    ensure_default_rooms(Room)
    staff = make_user("boss", is_staff=True)
    t = S.tournament_create(user=staff, name="Race Cup", capacity=8,
                            starts_at=timezone.now() + timedelta(minutes=5))
    for i in range(8):
        S.tournament_enter(tournament_id=t.pk, user=make_user(f"r{i}"))
    Tournament.objects.filter(pk=t.pk).update(starts_at=timezone.now())
    barrier = threading.Barrier(2)
    results, errors = [], []

    def run():
        try:
            barrier.wait(5)
            results.append(S.tournament_start(tournament_id=t.pk))
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run) for _ in range(2)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(30)
    assert not errors, errors
    assert sorted(results) == [False, True]
    assert Match.objects.filter(tournament=t).count() == 4
    assert Table.objects.count() == 4
    assert connection.vendor == "postgresql"
