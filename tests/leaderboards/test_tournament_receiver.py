"""The tournaments' receiver of ``game_finished``: after the commit, robust to failure, one
idempotent Celery task keyed by the game id (``tournaments.game_finished``)."""
from __future__ import annotations

import logging
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from games import services as games_services
from games import signals
from games.models import Game, Room
from games.rooms import ensure_default_rooms
from leaderboards.tournaments import services as S
from leaderboards.tournaments import tasks
from leaderboards.tournaments.models import Match, MatchStatus, Status, Tournament
from tests.support.records import make_game

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def started_match(make_user):
    """A started two-player single elimination: its one match, in play."""
    ensure_default_rooms(Room)
    staff = make_user("organiser", is_staff=True)
    t = S.tournament_create(user=staff, name="Receiver Cup", capacity=2,
                            starts_at=timezone.now() + timedelta(minutes=5))
    for name in ("ann", "bob"):
        S.tournament_enter(tournament_id=t.pk, user=make_user(name))
    Tournament.objects.filter(pk=t.pk).update(starts_at=timezone.now() - timedelta(seconds=1))
    assert S.tournament_start(tournament_id=t.pk)
    return Match.objects.get(tournament=t)


def _resign(match: Match) -> Game:
    loser = get_user_model().objects.get(pk=match.player_b_id)
    games_services.table_resign(table_id=match.table_id, user=loser)
    return Game.objects.get(table_id=match.table_id)


def test_the_task_is_queued_after_the_commit_keyed_by_the_game(started_match, monkeypatch):
    queued = []
    monkeypatch.setattr(tasks.game_finished, "delay", queued.append)
    # A signal inside a transaction that rolls back queues nothing.
    with pytest.raises(RuntimeError), transaction.atomic():
        signals.game_finished.send(sender=Game, game_id=4242, table_id=started_match.table_id)
        assert queued == []  # not before the commit either
        raise RuntimeError("rolled back")
    assert queued == []
    game = _resign(started_match)
    assert queued == [game.pk]  # the game's id, not the table's
    started_match.refresh_from_db()
    assert started_match.status == MatchStatus.PLAYING  # the task (not the signal) records

    assert tasks.game_finished(game.pk) is True
    started_match.refresh_from_db()
    assert started_match.status == MatchStatus.FINISHED
    assert started_match.winner_id == started_match.player_a_id
    version = Tournament.objects.get(pk=started_match.tournament_id).version
    assert tasks.game_finished(game.pk) is False  # idempotent: twice records once
    assert Tournament.objects.get(pk=started_match.tournament_id).version == version


def test_a_failure_to_queue_never_breaks_the_end_of_a_game(started_match, monkeypatch, caplog):
    def down(game_id):
        raise ConnectionError("the broker is down")

    monkeypatch.setattr(tasks.game_finished, "delay", down)
    with caplog.at_level(logging.ERROR, logger="leaderboards.tournaments.receivers"):
        game = _resign(started_match)  # does not raise
    assert game.winner_seat is not None
    assert any(str(game.pk) in r.getMessage() for r in caplog.records)
    started_match.refresh_from_db()
    assert started_match.status == MatchStatus.PLAYING
    # The lost task is made good by the sweep.
    S.tournaments_sweep()
    started_match.refresh_from_db()
    assert started_match.status == MatchStatus.FINISHED
    assert Tournament.objects.get(pk=started_match.tournament_id).status == Status.FINISHED


def test_the_task_leaves_other_games_alone(make_user):
    game = make_game([make_user("cat"), make_user("dan")])
    assert tasks.game_finished(game.pk) is False
    assert tasks.game_finished(10**9) is False  # a game that is gone
