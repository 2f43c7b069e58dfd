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


def test_two_tournaments_pairing_the_same_players_at_once_do_not_deadlock(make_user):
    """Each opens a match for p1 and one for p2, in opposite orders, in one transaction.
    Their waiting tables were left inside it, so each held one table and waited for the
    other's (PostgreSQL broke the deadlock by failing one pairing); they are left after the
    commit, each in a transaction of its own."""
    from games import services as games_services
    from leaderboards.tournaments.services.matches import match_open

    ensure_default_rooms(Room)
    staff = make_user("boss", is_staff=True)
    room = Room.objects.get(slug="classic")
    p1, p2, q1, q2, r1, r2 = (make_user(n) for n in ("p1", "p2", "q1", "q2", "r1", "r2"))
    waiting = [games_services.table_create(user=u, room=room).pk for u in (p1, p2)]
    cups = [S.tournament_create(user=staff, name=n, capacity=8,
                                starts_at=timezone.now() + timedelta(minutes=5))
            for n in ("East Cup", "West Cup")]
    plans = [(cups[0], [(p1, q1), (p2, q2)]), (cups[1], [(p2, r1), (p1, r2)])]
    barrier = threading.Barrier(2)
    errors = []

    def run(t, pairs):
        from django.db import transaction

        try:
            with transaction.atomic():
                for i, (a, b) in enumerate(pairs):
                    match_open(t, key=f"K{i}", round=1, a=a.pk, b=b.pk)
                    if i == 0:
                        barrier.wait(5)
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=plan) for plan in plans]
    for th in threads:
        th.start()
    for th in threads:
        th.join(30)
    assert not errors, errors
    assert Match.objects.filter(tournament__in=cups, table__isnull=False).count() == 4
    assert not Table.objects.filter(pk__in=waiting, seats__user__isnull=False).exists()
