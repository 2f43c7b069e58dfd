"""End to end with a real Celery worker on Redis: eight users enter a single-elimination
tournament; the worker starts it (seeding, bracket, a table per match) and, from the games'
finish signal, builds each next round; the users' seats are played by the Easy bot through
the ordinary move service, as a client would. Skipped without REDIS_URL (CI's second pass
has it)."""
from __future__ import annotations

import os
import time
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from games import computer, states
from games import services as games_services
from games.exceptions import GameServiceError
from games.models import Room, Table, TableStatus
from games.rooms import ensure_default_rooms
from leaderboards.tournaments import services as S
from leaderboards.tournaments.models import Entry, Match, MatchEnding, Status, Tournament
from tests.support.workers import celery_worker

pytestmark = [
    pytest.mark.worker,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not os.environ.get("REDIS_URL"),
                       reason="needs REDIS_URL: a real worker on the Redis broker"),
]


def _play_a_move(table: Table) -> bool:
    """The seat to act at ``table`` plays the Easy bot's move as its user."""
    state = states.load(table.state)
    seat = state.to_act
    if seat is None:
        return False
    user = table.seats.get(index=seat).user
    text = computer.bot_action(state, seat, 1, seed=table.seed ^ table.version)
    try:
        games_services.table_act(table_id=table.pk, user=user, action=text,
                                 expected_version=table.version)
    except GameServiceError:
        return False
    return True


def test_eight_players_play_a_whole_single_elimination(make_user, settings):
    ensure_default_rooms(Room)
    users = [make_user(f"e2e{i}") for i in range(8)]
    staff = make_user("e2e-staff", is_staff=True)
    t = S.tournament_create(user=staff, name="Worker Cup", capacity=8, target=50,
                            seconds_per_turn=60,
                            starts_at=timezone.now() + timedelta(minutes=2))
    for u in users:
        S.tournament_enter(tournament_id=t.pk, user=u)

    finished = False
    with celery_worker(settings, "test-tournament", default_queue=True,
                       tail=6000) as (worker, queue):
        # Due now: the start task is published for the worker (as beat's sweep would).
        Tournament.objects.filter(pk=t.pk).update(starts_at=timezone.now())
        from leaderboards.tournaments import tasks

        tasks.tournament_start.apply_async((t.pk,), queue=queue)
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and worker.poll() is None:
            t.refresh_from_db()
            if t.status in (Status.FINISHED, Status.CANCELLED):
                finished = True
                break
            moved = False
            for table in Table.objects.filter(tournament_match__tournament=t,
                                              status=TableStatus.PLAYING):
                moved |= _play_a_move(table)
            if not moved:
                time.sleep(0.2)
        assert worker.poll() is None, "the worker died"
        assert finished, "the tournament did not finish in time"
        t.refresh_from_db()
        assert t.status == Status.FINISHED
        matches = list(Match.objects.filter(tournament=t))
        assert len(matches) == 7  # 4 + 2 + 1, no byes for eight
        assert sorted(m.round for m in matches) == [1, 1, 1, 1, 2, 2, 3]
        assert all(m.ending == MatchEnding.PLAYED and m.table.game for m in matches)
        final = next(m for m in matches if m.round == 3)
        assert t.winner_id == final.winner_id
        places = sorted(Entry.objects.filter(tournament=t).values_list("place", flat=True))
        assert places == [1, 2, 3, 3, 5, 5, 5, 5]
        assert get_user_model().objects.get(pk=t.winner_id).username.startswith("e2e")
