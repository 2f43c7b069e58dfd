"""The one receiver pattern for ``game_finished`` in ratings and statistics (the tournaments'
is tested in test_tournament_receiver): nothing in the signal, an idempotent Celery task keyed
by the game id queued after the commit, and a failure to queue never breaks the finish."""
from __future__ import annotations

import logging

import pytest
from django.db import transaction

from games import services as games_services
from games import signals
from games.models import Ending, Game, Table
from leaderboards.models import PlaybanStrike, Rating, RatingChange
from leaderboards.ratings import tasks as rating_tasks
from leaderboards.stats import tasks as stats_tasks
from leaderboards.stats.models import PlayerStats
from tests.support.records import make_game
from tests.support.tables import rated_table

pytestmark = pytest.mark.django_db

TASKS = {"ratings": (rating_tasks.game_rated, "leaderboards.ratings.receivers"),
         "stats": (stats_tasks.game_record, "leaderboards.stats.receivers")}


@pytest.mark.parametrize("part", TASKS)
def test_the_task_is_queued_after_the_commit_only_keyed_by_the_game(
        part, monkeypatch, django_capture_on_commit_callbacks):
    task, _ = TASKS[part]
    queued = []
    monkeypatch.setattr(task, "delay", queued.append)
    # a transaction that rolls back queues nothing
    with django_capture_on_commit_callbacks(execute=True):
        with pytest.raises(RuntimeError), transaction.atomic():
            signals.game_finished.send(sender=Game, game_id=4242, table_id=7)
            raise RuntimeError("rolled back")
    assert queued == []
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        signals.game_finished.send(sender=Game, game_id=4242, table_id=7)
    assert queued == []  # nothing in the signal itself
    for callback in callbacks:
        callback()
    assert queued == [4242]  # the game's id, not the table's


@pytest.mark.parametrize("part", TASKS)
def test_a_broker_failure_never_breaks_the_finish(part, rooms, make_user, monkeypatch, caplog,
                                                  django_capture_on_commit_callbacks):
    task, logger = TASKS[part]

    def down(game_id):
        raise ConnectionError("the broker is down")

    monkeypatch.setattr(task, "delay", down)
    alice, bob = make_user("alice"), make_user("bob")
    with django_capture_on_commit_callbacks(execute=True):
        table = rated_table(rooms, [alice, bob])
    with caplog.at_level(logging.ERROR, logger="core.aftercommit"), \
            django_capture_on_commit_callbacks(execute=True):
        games_services.table_resign(table_id=table.pk, user=bob)  # does not raise
    game = Game.objects.get(table=table)
    assert Table.objects.get(pk=table.pk).status == "finished"
    assert game.winner_seat == 0
    assert any(str(game.pk) in r.getMessage() and task.name in r.getMessage()
               for r in caplog.records)


def test_rating_a_game_twice_changes_nothing(make_user):
    alice, bob = make_user("alice"), make_user("bob")
    game = make_game([alice, bob], ending=Ending.TIMEOUT, loser_seat=1)
    assert rating_tasks.game_rated(game.pk) == 1
    ratings = list(Rating.objects.order_by("pk").values())
    changes = list(RatingChange.objects.order_by("pk").values())
    assert PlaybanStrike.objects.filter(user=bob, game=game).count() == 1
    assert rating_tasks.game_rated(game.pk) == 0
    assert list(Rating.objects.order_by("pk").values()) == ratings
    assert list(RatingChange.objects.order_by("pk").values()) == changes
    assert PlaybanStrike.objects.filter(user=bob).count() == 1
    assert rating_tasks.game_rated(10**9) == 0  # a game that is gone


def test_counting_a_game_twice_changes_nothing(rooms, make_user,
                                               django_capture_on_commit_callbacks, monkeypatch):
    monkeypatch.setattr(stats_tasks.game_record, "delay", lambda game_id: None)
    alice, bob = make_user("alice"), make_user("bob")
    with django_capture_on_commit_callbacks(execute=True):
        table = rated_table(rooms, [alice, bob])
        games_services.table_resign(table_id=table.pk, user=bob)
    game = Game.objects.get(table=table)
    assert stats_tasks.game_record(game.pk) is True
    rows = list(PlayerStats.objects.order_by("pk").values())
    assert rows
    assert stats_tasks.game_record(game.pk) is False
    assert list(PlayerStats.objects.order_by("pk").values()) == rows
