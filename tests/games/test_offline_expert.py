"""An offline game against the Expert is stored only once the server has played every one of
the Expert's moves again (docs/offline.md, "Sync"): its upload waits (202) for a task on the
analyses' queue, and nothing of it shows until then. Celery runs eagerly in these tests: the
task runs at the upload's commit."""
from __future__ import annotations

import copy
import functools
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from games.models import Game, GamePlayer, OfflineCheck
from games.services import offline as offline_service
from tests.support.offline import play, post


def _relabelled_as_expert(seed: int) -> dict:
    """A real game against the Easy computer, its computer labelled the Expert: the moves are
    the Easy bot's, not the Expert's (an audit stored two such games as wins against the
    Expert)."""
    _doc, _f, record = play(level=1, seed=seed)
    forged = copy.deepcopy(record)
    forged["players"][1]["bot_level"] = 4
    forged["players"][1]["name"] = "Computer (Expert)"
    return forged


@functools.cache
def _expert_game() -> dict:
    """One whole game really played against the Expert (seconds of its search: made once)."""
    return play(level=4, seed=43)[2]


@pytest.mark.django_db(transaction=True)
def test_an_easy_game_labelled_expert_is_never_stored(ann, ann_client):
    from leaderboards.stats.models import PlayerStats

    forged = _relabelled_as_expert(seed=41)
    r = post(ann_client, forged)
    assert r.status_code == 202, r.content
    assert r.json()["pending"] and "checking" not in r.json()
    assert not Game.objects.exists()
    # the check ran (eagerly, at the commit) and refused it: posted again, the refusal
    again = post(ann_client, forged)
    assert again.status_code == 400, again.content
    error = again.json()["error"]
    assert error["code"] == "tampered"
    assert error["message"].startswith("Move ") and "not the computer's move" in error["message"]
    assert not Game.objects.exists() and not GamePlayer.objects.exists()
    assert not PlayerStats.objects.filter(user=ann).exists()
    assert "won against Computer (Expert)" not in ann_client.get("/u/ann/").content.decode()


@pytest.mark.django_db(transaction=True)
def test_a_game_really_played_against_the_expert_joins_the_archive_after_the_check(
        ann, ann_client):
    from leaderboards.stats.models import PlayerStats

    record = copy.deepcopy(_expert_game())
    r = post(ann_client, record)
    assert r.status_code == 202, r.content
    assert r.json() == {"ok": True, "created": False, "pending": True,
                        "message": r.json()["message"]}
    assert "Expert" in r.json()["message"]
    game = Game.objects.get(offline_id=record["offline_id"])  # checked and stored at the commit
    assert not OfflineCheck.objects.exists()
    players = list(GamePlayer.objects.filter(game=game).order_by("seat"))
    assert players[0].user == ann and players[1].bot_level == 4
    assert PlayerStats.objects.get(user=ann, mode="classic", opponents="expert").games == 1
    again = post(ann_client, record)
    assert again.status_code == 200 and again.json()["game"]["id"] == game.pk
    assert Game.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_a_check_lost_on_the_way_is_queued_again_and_the_upload_is_its_owners(
        ann, ann_client, make_user, monkeypatch):
    queued = []
    real_queue = offline_service._queue_check
    monkeypatch.setattr(offline_service, "_queue_check", queued.append)
    record = copy.deepcopy(_expert_game())
    assert post(ann_client, record).status_code == 202
    assert queued == [record["offline_id"]]
    check = OfflineCheck.objects.get()
    assert check.owner == ann and not check.error
    # posted again at once: still waiting, not queued twice
    assert post(ann_client, record).status_code == 202
    assert len(queued) == 1
    # another account posting the same game is refused, and changes nothing
    bob = Client()
    bob.force_login(make_user("bob"))
    r = post(bob, record)
    assert r.status_code == 409 and r.json()["error"]["code"] == "conflict"
    assert OfflineCheck.objects.get().owner == ann
    # silent for longer than an analysis may be: the next upload queues it again
    OfflineCheck.objects.update(queued_at=timezone.now() - timedelta(hours=1))
    monkeypatch.setattr(offline_service, "_queue_check", real_queue)
    assert post(ann_client, record).status_code == 202
    game = Game.objects.get(offline_id=record["offline_id"])
    assert not OfflineCheck.objects.exists()
    r = post(ann_client, record)
    assert r.status_code == 200 and r.json()["game"]["id"] == game.pk
    # the task delivered twice does nothing more
    assert offline_service.offline_check_run(offline_id=record["offline_id"]) is False
    assert Game.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_the_check_goes_to_the_analyses_queue(ann_client, monkeypatch):
    """Seconds of the Expert's search, on the worker of the analyses (scripts/run.sh starts
    one), never on the default queue of the computers' moves and the sweeps."""
    from celery import current_app
    from celery.canvas import Signature

    sent = []
    monkeypatch.setattr(Signature, "apply_async",
                        lambda self, *a, **kw: sent.append((self.task, self.args, kw["queue"])))
    record = copy.deepcopy(_expert_game())
    assert post(ann_client, record).status_code == 202
    default = current_app.conf.task_default_queue
    assert sent == [("games.offline_check", (record["offline_id"],), f"{default}.analysis")]
