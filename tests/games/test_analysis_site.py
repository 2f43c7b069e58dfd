"""The analysis on the site (docs/analysis.md, "On the site"): asking for one, its task, what
is stored and re-used, one at a time per person, who may see it, the endpoints' refusals,
the statistics read from it and the tournament finals analysed by themselves.

The games are short (to 10 points, played by the computers from each seat's view), and the
task runs eagerly (the test settings) with the real analyser."""
from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from core import channels as core_channels
from games import conf as games_conf
from games import records, services
from games.bots.analysis import ANALYSER_VERSION
from games.exceptions import AnalysisBusy, AnalysisNotFound, AnalysisSignIn
from games.models import Analysis, AnalysisJob, AnalysisSeat, AnalysisStatus
from games.services import analysis as analysis_service
from leaderboards.stats import selectors as stats_selectors
from tests.support.records import finished_game, short_game_state

pytestmark = pytest.mark.django_db


# seeds whose games are over in 7 to 13 moves (and have marked mistakes)
SEEDS = (8, 36, 14, 7)


def short(users, *, seed=SEEDS[0], private=False, at=None):
    return finished_game(users, seed=seed, private=private, at=at,
                         state=short_game_state(seed=seed))


def _ask(client, game_id):
    return client.post(f"/games/{game_id}/analysis/", HTTP_ACCEPT="application/json")


def test_asking_runs_the_task_stores_it_once_and_tells_the_requester(
        people, frames, django_capture_on_commit_callbacks):
    ann, bob, _ = people
    game = short([ann, bob])
    client = Client()
    client.force_login(ann)
    with django_capture_on_commit_callbacks(execute=True):
        answer = _ask(client, game.pk)
    assert answer.status_code == 202, answer.content
    assert answer.json()["analysis"]["status"] == "queued"
    stored = Analysis.objects.get(game=game)
    assert stored.version == ANALYSER_VERSION
    assert stored.seed == services.analysis_seed(game)
    job = AnalysisJob.objects.get(game=game)
    assert job.status == AnalysisStatus.DONE and job.done == job.total > 0
    # queued, running (with progress), done: to the requester only
    statuses = [f["status"] for f in frames[ann.pk]]
    assert statuses[0] == "queued" and statuses[-1] == "done" and "running" in statuses
    assert all(f["type"] == "analysis" and f["game"] == game.pk for f in frames[ann.pk])
    assert bob.pk not in frames
    for frame in frames[ann.pk]:  # where it stands, never the result
        assert set(frame) <= {"type", "game", "status", "done", "total", "url", "error"}
    # every decision of both seats, in columns for the statistics
    seats = {s.seat: s for s in AnalysisSeat.objects.filter(analysis=stored)}
    assert set(seats) == {0, 1}
    assert seats[0].user == ann and seats[1].user == bob
    for s in seats.values():
        assert 0 <= s.accuracy <= 100 and s.decisions > 0
        assert s.best + s.good + s.inaccuracies + s.mistakes + s.blunders == s.decisions
    state = client.get(f"/games/{game.pk}/analysis.json").json()
    assert state["status"] == "done" and state["can_request"] is False
    assert len(state["analysis"]["decisions"]) == len(stored.data["decisions"])
    page = client.get(f"/games/{game.pk}/").content.decode()
    assert 'id="analysis-data"' in page and "Analyse this game" not in page

    # asked again (by anyone who may see it): the stored one, nothing queued or computed
    other = Client()
    other.force_login(bob)
    with django_capture_on_commit_callbacks(execute=True) as queued:
        again = _ask(other, game.pk)
    assert again.status_code == 202 and again.json()["analysis"]["status"] == "done"
    assert queued == []
    assert Analysis.objects.filter(game=game).count() == 1
    assert AnalysisJob.objects.filter(game=game).count() == 1
    # the task delivered twice changes nothing
    assert services.analysis_run(job_id=job.pk) is False
    assert Analysis.objects.filter(game=game).count() == 1


def test_analyses_go_to_a_queue_of_their_own(people, frames, monkeypatch,
                                             django_capture_on_commit_callbacks):
    """An analysis takes a process for a minute or more: it is queued on
    ``<default queue>.analysis``, which its own worker reads (scripts/run.sh), never on the
    queue of the computers' moves and the sweeps."""
    from celery import current_app
    from celery.canvas import Signature

    sent = []
    monkeypatch.setattr(Signature, "apply_async",
                        lambda self, *a, **kw: sent.append((self.task, kw.get("queue"))))
    ann, bob, _ = people
    game = short([ann, bob])
    client = Client()
    client.force_login(ann)
    with django_capture_on_commit_callbacks(execute=True):
        assert _ask(client, game.pk).status_code == 202
    default = current_app.conf.task_default_queue
    assert sent == [("games.analyse", f"{default}.analysis")]
    assert services.analysis_queue() == f"{default}.analysis" != default


def test_the_same_game_gives_the_same_numbers(people, frames,
                                              django_capture_on_commit_callbacks):
    ann, bob, _ = people
    game = short([ann, bob], seed=SEEDS[1])
    with django_capture_on_commit_callbacks(execute=True):
        services.analysis_request(game_id=game.pk, user=ann)
    first = Analysis.objects.get(game=game).data
    Analysis.objects.all().delete()
    AnalysisJob.objects.all().delete()
    with django_capture_on_commit_callbacks(execute=True):
        services.analysis_request(game_id=game.pk, user=bob)
    assert Analysis.objects.get(game=game).data == first


def test_one_analysis_at_a_time_per_person(people, frames, django_capture_on_commit_callbacks):
    ann, bob, cleo = people
    first, second = short([ann, bob]), short([ann, cleo], seed=SEEDS[1])
    client = Client()
    client.force_login(ann)
    # the first is queued (its task not run yet: the callbacks are not executed)
    with django_capture_on_commit_callbacks(execute=False):
        assert _ask(client, first.pk).status_code == 202
    before = list(AnalysisJob.objects.values_list("pk", "game_id", "status"))
    answer = _ask(client, second.pk)
    assert answer.status_code == 409
    assert answer.json()["error"]["code"] == "busy"
    assert f"game {first.pk}" in answer.json()["error"]["message"]
    assert list(AnalysisJob.objects.values_list("pk", "game_id", "status")) == before
    # the form's answer says so too
    page = client.post(f"/games/{second.pk}/analysis/", follow=True).content.decode()
    assert "one at a time" in page
    with pytest.raises(AnalysisBusy):
        services.analysis_request(game_id=second.pk, user=ann)
    # the game page says why the button is missing
    state = client.get(f"/games/{second.pk}/analysis.json").json()
    assert state["can_request"] is False and state["busy_game"] == first.pk
    # someone else may join the first (nothing new is queued) or ask for their own
    other = Client()
    other.force_login(cleo)
    assert _ask(other, first.pk).status_code == 202
    with django_capture_on_commit_callbacks(execute=True):
        assert _ask(other, second.pk).status_code == 202
    assert Analysis.objects.filter(game=second).exists()


def test_a_lost_job_stops_holding_the_one_at_a_time(people, frames,
                                                    django_capture_on_commit_callbacks):
    ann, bob, cleo = people
    first, second = short([ann, bob]), short([ann, cleo], seed=SEEDS[1])
    with django_capture_on_commit_callbacks(execute=False):
        services.analysis_request(game_id=first.pk, user=ann)
    AnalysisJob.objects.filter(game=first).update(
        status=AnalysisStatus.RUNNING,
        beat_at=timezone.now() - timedelta(seconds=games_conf.get("ANALYSIS_STALE") + 5))
    with django_capture_on_commit_callbacks(execute=True):
        services.analysis_request(game_id=second.pk, user=ann)
    assert AnalysisJob.objects.get(game=first).status == AnalysisStatus.FAILED
    assert AnalysisJob.objects.get(game=second).status == AnalysisStatus.DONE
    # and the lost one may be asked for again
    with django_capture_on_commit_callbacks(execute=True):
        services.analysis_request(game_id=first.pk, user=ann)
    assert AnalysisJob.objects.get(game=first).status == AnalysisStatus.DONE


def test_a_private_games_analysis_is_for_its_players_only(
        people, frames, django_capture_on_commit_callbacks):
    ann, bob, cleo = people
    game = short([ann, bob], private=True)
    outsider = Client()
    outsider.force_login(cleo)
    # a game the person could not see is refused like a missing game, and nothing is kept
    for client in (outsider, Client()):
        answer = _ask(client, game.pk)
        assert answer.status_code == 404
        assert answer.json()["error"]["code"] == "not_found"
        assert client.post(f"/games/{game.pk}/analysis/").status_code == 404
    assert not AnalysisJob.objects.exists()
    with pytest.raises(AnalysisNotFound):
        services.analysis_request(game_id=game.pk, user=cleo)
    with pytest.raises(AnalysisNotFound):
        services.analysis_request(game_id=game.pk, user=None)
    # a player asks; then only the players read it
    player = Client()
    player.force_login(bob)
    with django_capture_on_commit_callbacks(execute=True):
        assert _ask(player, game.pk).status_code == 202
    assert Analysis.objects.filter(game=game).exists()
    seats = AnalysisSeat.objects.filter(game=game)
    assert seats.count() == 2 and all(s.private for s in seats)
    assert player.get(f"/games/{game.pk}/analysis.json").json()["analysis"]
    for client in (outsider, Client()):
        answer = client.get(f"/games/{game.pk}/analysis.json")
        assert answer.status_code == 404
        assert str(game.pk) not in answer.content.decode()
        assert client.get(f"/games/{game.pk}/").status_code == 404
    assert cleo.pk not in frames and ann.pk not in frames
    # the players' accuracy: on their own statistics, never on the profile others see
    assert stats_selectors.accuracy_summary(user=bob, viewer=bob) is not None
    assert stats_selectors.accuracy_summary(user=bob, viewer=cleo) is None
    assert stats_selectors.accuracy_summary(user=bob, viewer=None) is None
    profile = outsider.get(f"/u/{bob.username}/").content.decode()
    assert "Average accuracy" not in profile
    mine = player.get("/stats/").content.decode()
    assert "Average accuracy over analysed games" in mine


def test_the_endpoints_refuse_bad_requests_and_change_nothing(people, frames):
    ann, bob, _ = people
    game = short([ann, bob])
    client = Client()
    client.force_login(ann)
    assert _ask(client, 987654).status_code == 404
    assert client.get("/games/987654/analysis.json").status_code == 404
    assert client.get(f"/games/{game.pk}/analysis/").status_code == 405
    assert client.put(f"/games/{game.pk}/analysis.json").status_code == 405
    assert client.post(f"/games/{game.pk}/analysis.json").status_code == 405
    assert client.get(f"/games/{game.pk}/analysis/x/").status_code == 404
    # signed out: asked to sign in (a public game: it exists), nothing queued
    anonymous = Client()
    answer = _ask(anonymous, game.pk)
    assert answer.status_code == 403 and answer.json()["error"]["code"] == "sign_in"
    assert "/accounts/login/" in anonymous.post(f"/games/{game.pk}/analysis/")["Location"]
    with pytest.raises(AnalysisSignIn):
        services.analysis_request(game_id=game.pk, user=None)
    # a game whose record does not replay: refused with a reason
    broken = short([ann, bob], seed=SEEDS[2])
    broken.record = {**broken.record, "engine": None}
    broken.save(update_fields=["record"])
    answer = _ask(client, broken.pk)
    assert answer.status_code == 400 and answer.json()["error"]["code"] == "no_record"
    assert not AnalysisJob.objects.exists()
    # anyone may read a public game's state
    state = anonymous.get(f"/games/{game.pk}/analysis.json").json()
    assert state["status"] == "none" and state["can_request"] is False
    assert "Sign in" in state["reason"]


def test_a_failing_analysis_is_told_and_may_be_asked_again(
        people, frames, monkeypatch, django_capture_on_commit_callbacks):
    ann, bob, _ = people
    game = short([ann, bob])

    def broken(record, *, seed=0, progress=None, **sources):
        raise RuntimeError("boom")

    monkeypatch.setattr(analysis_service, "analyse", broken)
    with django_capture_on_commit_callbacks(execute=True):
        services.analysis_request(game_id=game.pk, user=ann)
    job = AnalysisJob.objects.get(game=game)
    assert job.status == AnalysisStatus.FAILED and job.error
    assert frames[ann.pk][-1]["status"] == "failed" and frames[ann.pk][-1]["error"]
    monkeypatch.undo()  # (the frames fixture's patches go too: record them again)
    monkeypatch.setattr(core_channels, "send_now", lambda messages: True)
    monkeypatch.setattr(analysis_service, "send_now", lambda messages: True)
    with django_capture_on_commit_callbacks(execute=True):
        services.analysis_request(game_id=game.pk, user=ann)
    assert AnalysisJob.objects.get(game=game).status == AnalysisStatus.DONE


def test_accuracy_per_mode_and_its_trend(people, frames, django_capture_on_commit_callbacks):
    ann, bob, cleo = people
    games = [short([ann, bob], seed=s) for s in SEEDS[:2]]
    with django_capture_on_commit_callbacks(execute=True):
        services.analysis_request(game_id=games[0].pk, user=ann)
    with django_capture_on_commit_callbacks(execute=True):
        services.analysis_request(game_id=games[1].pk, user=ann)
    summary = stats_selectors.accuracy_summary(user=ann, viewer=cleo)
    seats = AnalysisSeat.objects.filter(user=ann)
    expected = round(sum(s.accuracy for s in seats) / len(seats), 1)
    assert summary["games"] == 2
    assert summary["modes"] == [{"mode": "classic", "name": "Classic Gin", "games": 2,
                                 "accuracy": expected,
                                 "mistakes": sum(s.mistakes for s in seats),
                                 "blunders": sum(s.blunders for s in seats)}]
    assert [p["value"] for p in summary["trend"]["points"]] == [expected]
    client = Client()
    client.force_login(cleo)
    profile = client.get(f"/u/{ann.username}/").content.decode()
    assert "Average accuracy over analysed games" in profile and f"{expected}%" in profile


def test_moves_played_on_a_timeout_stay_out_of_the_players_accuracy(
        people, frames, django_capture_on_commit_callbacks):
    """The game's stored sources say which moves the site played for a player whose time
    ran out: those are shown as such and counted in no accuracy (a player who never moved
    read 99.4 %)."""
    ann, bob, _ = people
    game = short([ann, bob])
    moves = records.engine_record(game).moves
    game.actions = [{"version": i + 1, "seat": m.seat, "action": m.action,
                     "source": "timeout" if m.seat == 1 else "player"}
                    for i, m in enumerate(moves)]
    game.save(update_fields=["actions"])
    with django_capture_on_commit_callbacks(execute=True):
        services.analysis_request(game_id=game.pk, user=ann)
    stored = Analysis.objects.get(game=game)
    for d in stored.data["decisions"]:
        assert (d["judgement"] == "timeout") == (d["seat"] == 1), d
    seats = {s.seat: s for s in AnalysisSeat.objects.filter(analysis=stored)}
    assert seats[1].decisions == 0 and seats[0].decisions > 0
    # bob's statistics have no analysed game (a seat with no decision counts in none)
    assert stats_selectors.accuracy_summary(user=bob, viewer=bob) is None
    assert stats_selectors.accuracy_summary(user=ann, viewer=ann)["games"] == 1
    # (stored sources that do not line up with the record are not trusted)
    game.actions = game.actions[:-1]
    assert records.timed_out_moves(game, records.engine_record(game)) == frozenset()


def test_tournament_finals_are_analysed_by_themselves(people, frames, monkeypatch,
                                                      django_capture_on_commit_callbacks):
    from leaderboards.tournaments.models import Format, Match, Status, Tournament
    from leaderboards.tournaments.services import finals
    from leaderboards.tournaments.services.advancing import tournament_finish

    ann, bob, cleo = people
    semi, final = short([ann, cleo]), short([ann, bob], seed=SEEDS[1])
    t = Tournament.objects.create(
        name="Cup", mode="classic", format=Format.SINGLE, target=10, capacity=4,
        starts_at=timezone.now(), entry_opens_at=timezone.now())
    for key, rnd, game in (("W1-1", 1, semi), ("W2-1", 2, final)):
        game.table = game.table or _table_for(game)
        game.save(update_fields=["table"])
        Match.objects.create(tournament=t, key=key, round=rnd, player_a=ann, table=game.table,
                             status="finished", finished_at=game.finished_at)
    Match.objects.filter(key="W1-1").update(finished_at=timezone.now() - timedelta(hours=1))
    assert finals.final_game_ids(t) == [final.pk]
    # the tournament finishes: its final is analysed, nobody asked
    t.status = Status.RUNNING
    t.save(update_fields=["status"])
    with django_capture_on_commit_callbacks(execute=True):
        tournament_finish(t)
    job = AnalysisJob.objects.get()
    assert job.game_id == final.pk and job.automatic and job.requested_by is None
    assert job.status == AnalysisStatus.DONE and Analysis.objects.filter(game=final).exists()
    assert frames == {}  # nobody's request: nobody's socket
    # Swiss: the whole last round
    t.format = Format.SWISS
    assert finals.final_game_ids(t) == [final.pk]
    Match.objects.filter(key="W1-1").update(round=2)
    assert finals.final_game_ids(t) == sorted([semi.pk, final.pk])


def _table_for(game):
    from games.models import Room, Table, TableStatus

    room = Room.objects.filter(mode=game.mode).first() or Room.objects.create(
        slug=game.mode, name=game.mode, mode=game.mode)
    return Table.objects.create(room=room, mode=game.mode, seat_count=2, target=10,
                                status=TableStatus.FINISHED, seed=game.seed)
