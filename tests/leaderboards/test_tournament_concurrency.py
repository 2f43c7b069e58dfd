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


def test_two_tournaments_pairing_the_same_players_at_once_give_each_one_table(make_user,
                                                                             monkeypatch):
    """East pairs p1 and p2 (with q1, q2), West pairs them too (with r2, r1, in the other
    order), in two workers at the same moment. Each read that p1 and p2 were free before the
    other's commit, and each of them had two tables with running clocks (one match lost as
    absent). Pairing takes the pairing lock: West reads after East's commit, and its matches
    wait. (The players' waiting tables are left after the commit: left inside the pairing's
    transaction, two such pairings locked them in opposite orders and deadlocked.)"""
    from games import selectors as games_selectors
    from games import services as games_services
    from leaderboards.tournaments.models import MatchStatus
    from leaderboards.tournaments.services.matches import match_open

    ensure_default_rooms(Room)
    staff = make_user("boss", is_staff=True)
    room = Room.objects.get(slug="classic")
    p1, p2, q1, q2, r1, r2 = (make_user(n) for n in ("p1", "p2", "q1", "q2", "r1", "r2"))
    waiting = [games_services.table_create(user=u, room=room).pk for u in (p1, p2)]
    cups = [S.tournament_create(user=staff, name=n, capacity=8,
                                starts_at=timezone.now() + timedelta(minutes=5))
            for n in ("East Cup", "West Cup")]
    for t in cups:
        Tournament.objects.filter(pk=t.pk).update(status="running")
    plans = [(cups[0], [(p1, q1), (p2, q2)]), (cups[1], [(p2, r1), (p1, r2)])]
    # each pairing's read of who is free waits (2 s at most) for the other's: without the
    # lock both read before either writes
    read = games_selectors.playing_with_people
    both_read = threading.Barrier(2)

    def read_then_wait(ids):
        found = read(ids)
        try:
            both_read.wait(2)
        except threading.BrokenBarrierError:
            pass
        return found

    monkeypatch.setattr(games_selectors, "playing_with_people", read_then_wait)
    start = threading.Barrier(2)
    errors = []

    def run(t, pairs):
        from django.db import transaction

        try:
            start.wait(5)
            with transaction.atomic():
                for i, (a, b) in enumerate(pairs):
                    match_open(t, key=f"K{i}", round=1, a=a.pk, b=b.pk)
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
    matches = Match.objects.filter(tournament__in=cups)
    assert matches.count() == 4
    for player in (p1, p2):
        assert Table.objects.filter(seats__user=player, status="playing").count() == 1, player
    assert sorted(matches.values_list("status", flat=True)) == [
        MatchStatus.PLAYING, MatchStatus.PLAYING, MatchStatus.WAITING, MatchStatus.WAITING]
    assert not Table.objects.filter(pk__in=waiting, seats__user__isnull=False).exists()
