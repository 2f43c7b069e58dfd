"""Imported records (docs/records.md, "Imported records"; docs/analysis.md): a signed-in
person's import is kept once per record, found again, deleted, and analysed by the same task
as a finished game (one at a time, progress frames, stored once and re-used, seeded by the
record); it and its analysis are the importer's alone; a signed-out import is shown only;
its analysis counts in nobody's statistics; bad requests are 4xx and change nothing.

The records are short games (to 10 points, played by the computers from each seat's view),
and the task runs eagerly (the test settings) with the real analyser."""
from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from games import records, services
from games.bots.analysis import ANALYSER_VERSION
from games.exceptions import AnalysisBusy, AnalysisNotFound, ImportNotFound, ImportNotKept
from games.models import Analysis, AnalysisJob, AnalysisSeat, AnalysisStatus, ImportedRecord
from games.services import analysis as analysis_service
from leaderboards.stats import selectors as stats_selectors
from tests.support.records import finished_game, short_game_state

pytestmark = pytest.mark.django_db

SEEDS = (8, 36, 14)  # games over in 7 to 13 moves


def short_game(users, seed=SEEDS[0]):
    return finished_game(users, seed=seed, state=short_game_state(seed=seed))


def _client(user=None):
    c = Client()
    if user is not None:
        c.force_login(user)
    return c


def _upload(client, content: str, name="game.txt"):
    return client.post("/games/import/", {
        "record": SimpleUploadedFile(name, content.encode(), content_type="text/plain")})


def _keep(owner, game, name="game.txt"):
    record, names = records.record_import(records.record_text(game))
    return services.import_keep(owner=owner, record=record, names=names, filename=name)[0]


def _ask(client, record_id):
    return client.post(f"/games/import/{record_id}/analysis/", HTTP_ACCEPT="application/json")


def test_a_signed_in_import_is_kept_once_and_found_again(people):
    ann, bob, cleo = people
    game = short_game([ann, bob])
    client = _client(cleo)  # (anyone may import any record file: it is kept for them)
    answer = _upload(client, records.record_text(game), name="../evening game.txt")
    kept = ImportedRecord.objects.get()
    assert answer.status_code == 302 and answer["Location"] == f"/games/import/{kept.pk}/"
    assert kept.owner == cleo and kept.filename == "evening game.txt"
    assert kept.mode == "classic" and kept.names == ["ann", "bob"] and kept.finished
    assert kept.moves == len(game.record["engine"]["moves"])
    page = client.get(answer["Location"]).content.decode()
    assert "evening game.txt" in page and "Analyse this game" in page
    assert 'id="analysis-data"' in page and 'id="replay-data"' in page
    # its files again, which import back to the same row; its importer's alone
    assert "the score sheet and the record files below" not in page  # (it has neither)
    for fmt in ("json", "txt"):
        url = f"/games/import/{kept.pk}/record.{fmt}"
        assert f'href="{url}"' in page
        again = client.get(url)
        assert again.status_code == 200
        assert again["Content-Disposition"] == f'attachment; filename="imported-{kept.pk}.{fmt}"'
        assert _upload(client, again.content.decode())["Location"] == f"/games/import/{kept.pk}/"
        assert _client(ann).get(url).status_code == 404 and Client().get(url).status_code == 404
    assert client.get(f"/games/import/{kept.pk}/record.exe").status_code == 404
    # the same record again, in either JSON form: the same row
    for content in (json.dumps(game.record["engine"]), json.dumps(records.record_json(game))):
        again = _upload(client, content, name="again.json")
        assert again.status_code == 302 and again["Location"] == f"/games/import/{kept.pk}/"
    assert ImportedRecord.objects.count() == 1
    assert "already" in client.get(again["Location"]).content.decode()
    # the list on the import page, with a way to delete each
    listing = client.get("/games/import/").content.decode()
    assert f'href="/games/import/{kept.pk}/"' in listing
    assert f'action="/games/import/{kept.pk}/delete/"' in listing and "not analysed" in listing
    # another person importing it keeps their own copy
    _upload(_client(ann), records.record_text(game))
    assert ImportedRecord.objects.filter(owner=ann).count() == 1


def test_a_signed_out_import_is_shown_and_not_kept(people):
    ann, bob, _ = people
    game = short_game([ann, bob])
    answer = _upload(Client(), records.record_text(game))
    assert answer.status_code == 200
    page = answer.content.decode()
    assert 'id="replay-data"' in page and "Sign in</a> to keep it" in page
    # the mode by its name, as on a kept record's page (it read "classic")
    assert "through the engine: Classic Gin, <bdi>ann</bdi>, <bdi>bob</bdi>" in page
    assert "analysis-data" not in page and "Analyse this game" not in page
    assert ImportedRecord.objects.count() == 0
    assert "Sign in</a> to keep your imported records" in Client().get(
        "/games/import/").content.decode()


def test_analysing_an_imported_record(people, frames, django_capture_on_commit_callbacks):
    ann, bob, cleo = people
    game = short_game([ann, bob], seed=SEEDS[1])
    kept = _keep(ann, game)
    client = _client(ann)
    with django_capture_on_commit_callbacks(execute=True):
        answer = _ask(client, kept.pk)
    assert answer.status_code == 202, answer.content
    assert answer.json()["analysis"]["status"] == "queued"
    stored = Analysis.objects.get(imported=kept)
    assert stored.game is None and stored.version == ANALYSER_VERSION
    assert stored.seed == services.import_seed(kept)
    assert len(stored.data["decisions"]) == kept.moves
    job = AnalysisJob.objects.get(imported=kept)
    assert job.status == AnalysisStatus.DONE and job.done == job.total == kept.moves
    # progress to the importer only, naming the record (not a game)
    statuses = [f["status"] for f in frames[ann.pk]]
    assert statuses[0] == "queued" and "running" in statuses and statuses[-1] == "done"
    assert all(f["game"] is None and f["record"] == kept.pk
               and f["url"] == f"/games/import/{kept.pk}/" for f in frames[ann.pk])
    assert set(frames) == {ann.pk}
    # not in anybody's statistics: the seats are names in a file
    assert not AnalysisSeat.objects.exists()
    assert stats_selectors.accuracy_summary(user=ann, viewer=ann) is None
    assert "Average accuracy" not in client.get("/stats/").content.decode()
    # the page and its JSON show it; asking again answers the stored one
    state = client.get(f"/games/import/{kept.pk}/analysis.json").json()
    assert state["status"] == "done" and state["can_request"] is False
    assert state["record"] == kept.pk and state["game"] is None
    assert state["analysis"] == stored.data
    assert state["json_url"] == f"/games/import/{kept.pk}/analysis.json"
    shown = client.get(f"/games/import/{kept.pk}/")
    page = shown.content.decode()
    assert 'id="analysis-data"' in page and "Analyse this game" not in page
    assert shown.context["analysis"]["viewer_seat"] == 0  # ann's own seat, by her username
    assert 'data-label="Analysis">analysed<' in client.get("/games/import/").content.decode()
    with django_capture_on_commit_callbacks(execute=True) as queued:
        assert _ask(client, kept.pk).json()["analysis"]["status"] == "done"
    assert queued == [] and Analysis.objects.count() == 1
    assert services.analysis_run(job_id=job.pk) is False  # delivered twice: nothing

    # the same record gives the same numbers: analysed again, and for another importer
    Analysis.objects.all().delete()
    AnalysisJob.objects.all().delete()
    other = _keep(cleo, game, name="copy.txt")
    assert services.import_seed(other) == stored.seed
    with django_capture_on_commit_callbacks(execute=True):
        services.analysis_request_import(record_id=other.pk, user=cleo)
    assert Analysis.objects.get(imported=other).data == stored.data


def test_an_imported_record_is_its_importers_alone(people, frames,
                                                   django_capture_on_commit_callbacks):
    ann, bob, cleo = people
    game = short_game([ann, bob])
    kept = _keep(ann, game, name="ann-secret.txt")
    with django_capture_on_commit_callbacks(execute=True):
        services.analysis_request_import(record_id=kept.pk, user=ann)
    urls = [f"/games/import/{kept.pk}/", f"/games/import/{kept.pk}/analysis.json"]
    # everybody else, the record's own players included (bob is a name in it), and visitors
    for client in (_client(bob), _client(cleo), Client()):
        for url in urls:
            answer = client.get(url)
            assert answer.status_code == 404, url
            assert "ann-secret" not in answer.content.decode()
        assert "ann-secret" not in client.get("/games/import/").content.decode()
        for accept in ("application/json", "text/html"):
            assert client.post(f"/games/import/{kept.pk}/analysis/",
                               HTTP_ACCEPT=accept).status_code == 404
        assert client.post(f"/games/import/{kept.pk}/delete/").status_code == 404
    with pytest.raises(AnalysisNotFound):
        services.analysis_request_import(record_id=kept.pk, user=cleo)
    with pytest.raises(ImportNotFound):
        services.import_delete(owner=cleo, record_id=kept.pk)
    assert ImportedRecord.objects.filter(pk=kept.pk).exists()
    assert Analysis.objects.filter(imported=kept).count() == 1


def test_one_analysis_at_a_time_across_games_and_imports(people, frames,
                                                          django_capture_on_commit_callbacks):
    ann, bob, _ = people
    game = short_game([ann, bob])
    kept = _keep(ann, short_game([ann, bob], seed=SEEDS[2]), name="mine.txt")
    client = _client(ann)
    # a game's analysis queued (its task not run): the record's is refused
    with django_capture_on_commit_callbacks(execute=False):
        assert client.post(f"/games/{game.pk}/analysis/",
                           HTTP_ACCEPT="application/json").status_code == 202
    before = list(AnalysisJob.objects.values_list("pk", "status"))
    answer = _ask(client, kept.pk)
    assert answer.status_code == 409 and answer.json()["error"]["code"] == "busy"
    assert f"game {game.pk}" in answer.json()["error"]["message"]
    assert list(AnalysisJob.objects.values_list("pk", "status")) == before
    state = client.get(f"/games/import/{kept.pk}/analysis.json").json()
    assert state["can_request"] is False and state["busy_game"] == game.pk
    assert "one at a time" in client.post(f"/games/import/{kept.pk}/analysis/",
                                          follow=True).content.decode()
    # and the other way round: the record's queued, a game's refused, naming the record
    AnalysisJob.objects.all().delete()
    with django_capture_on_commit_callbacks(execute=False):
        assert _ask(client, kept.pk).status_code == 202
    with pytest.raises(AnalysisBusy, match="the imported record “mine.txt”"):
        services.analysis_request(game_id=game.pk, user=ann)
    state = client.get(f"/games/{game.pk}/analysis.json").json()
    assert state["can_request"] is False and state["busy_record"] == kept.pk
    assert state["busy_game"] is None and "mine.txt" in state["reason"]


def test_deleting_a_record_drops_its_analysis_and_frees_the_turn(
        people, frames, settings, monkeypatch, django_capture_on_commit_callbacks):
    ann, bob, _ = people
    kept = _keep(ann, short_game([ann, bob]))
    client = _client(ann)
    with django_capture_on_commit_callbacks(execute=False) as queued:
        assert _ask(client, kept.pk).status_code == 202
    job = AnalysisJob.objects.get(imported=kept)
    # deleted while it runs: the run stops at its next progress report and stores nothing
    settings.GAMES_ANALYSIS_PROGRESS_EVERY = 0
    real = analysis_service.analyse

    def deleting(record, *, seed, progress, **sources):
        def report(done, total):
            if done == 2:
                ImportedRecord.objects.filter(pk=kept.pk).delete()
            progress(done, total)
        return real(record, seed=seed, progress=report, **sources)

    monkeypatch.setattr(analysis_service, "analyse", deleting)
    assert services.analysis_run(job_id=job.pk) is False
    assert not Analysis.objects.exists() and not AnalysisJob.objects.exists()
    for callback in queued:  # the task, delivered after the deletion: nothing to do
        callback()
    monkeypatch.setattr(analysis_service, "analyse", real)
    # the owner deletes an analysed record from its page: both go, the turn is free
    kept = _keep(ann, short_game([ann, bob], seed=SEEDS[1]))
    with django_capture_on_commit_callbacks(execute=True):
        _ask(client, kept.pk)
    assert Analysis.objects.filter(imported=kept).exists()
    answer = client.post(f"/games/import/{kept.pk}/delete/", follow=True)
    assert answer.status_code == 200 and "deleted" in answer.content.decode()
    assert not ImportedRecord.objects.exists() and not Analysis.objects.exists()
    assert client.get(f"/games/import/{kept.pk}/").status_code == 404
    assert client.post(f"/games/import/{kept.pk}/delete/").status_code == 404


def test_the_caps_show_the_record_without_keeping_it(people, settings):
    ann, bob, _ = people
    first, second = short_game([ann, bob]), short_game([ann, bob], seed=SEEDS[1])
    client = _client(ann)
    settings.GAMES_IMPORTS_PER_USER = 1
    assert _upload(client, records.record_text(first)).status_code == 302
    answer = _upload(client, records.record_text(second))
    assert answer.status_code == 200 and 'id="replay-data"' in answer.content.decode()
    assert "You keep 1 imported records, the most" in answer.content.decode()
    assert ImportedRecord.objects.count() == 1
    # the one kept already is found again, cap or not
    assert _upload(client, records.record_text(first)).status_code == 302
    settings.GAMES_IMPORTS_PER_USER = 50
    settings.GAMES_IMPORT_KEEP_MAX_BYTES = 500
    answer = _upload(client, records.record_text(second))
    assert answer.status_code == 200 and "too long to keep" in answer.content.decode()
    record, names = records.record_import(records.record_text(second))
    with pytest.raises(ImportNotKept):
        services.import_keep(owner=ann, record=record, names=names, filename="x")
    assert ImportedRecord.objects.count() == 1


def test_bad_requests_are_refused_and_change_nothing(people, frames):
    ann, bob, _ = people
    kept = _keep(ann, short_game([ann, bob]))
    client = _client(ann)
    for url in ("/games/import/999999/", "/games/import/999999/analysis.json",
                "/games/import/0/", "/games/import/abc/"):
        assert client.get(url).status_code == 404, url
    for url in ("/games/import/999999/analysis/", "/games/import/999999/delete/"):
        assert client.post(url, HTTP_ACCEPT="application/json").status_code == 404, url
    # wrong methods
    assert client.get(f"/games/import/{kept.pk}/analysis/").status_code == 405
    assert client.get(f"/games/import/{kept.pk}/delete/").status_code == 405
    assert client.post(f"/games/import/{kept.pk}/analysis.json").status_code == 405
    assert client.put("/games/import/").status_code == 405
    # a broken or oversized file: 400, nothing kept
    assert _upload(client, "1 what is this").status_code == 400
    assert _upload(client, "x" * 1_000_001).status_code == 400
    # numbers Python will not read (over 4,300 digits), Unicode digits, and a hand bigger
    # than the deck: each was a 500
    head = 'Format: gin-record/1\nMode: classic\nPlayers: ["a", "b"]\n'
    for text in ('{"seed": ' + "9" * 4301 + "}",
                 head + "Seed: 1\n\n1 pass @" + "9" * 4301,
                 head + "Seed: 1\n\n" + "1" * 4400 + " pass",
                 head + "Seed: " + "1" * 4400 + "\n",
                 head + "Seed: 1\n\n\u00b2 pass",
                 head + 'Settings: {"hand_size": 26}\nSeed: 1\n',
                 '{"format": "gin-record/1", "mode": "classic", "settings": {"hand_size": 26},'
                 ' "players": ["a", "b"], "seed": 1, "moves": []}'):
        r = _upload(client, text)
        assert r.status_code == 400, text[:80]
        assert len(r.content) < 50_000  # the refusal does not quote 4,000 digits back
    # a JSON file that is no record is told so in words (it was "KeyError('mode')")
    r = _upload(client, '{"hello": 1}')
    assert r.status_code == 400
    page = r.content.decode()
    assert "it has no &#x27;mode&#x27; field" in page or "it has no 'mode' field" in page
    assert "KeyError" not in page
    assert ImportedRecord.objects.count() == 1 and not AnalysisJob.objects.exists()


def test_the_list_reads_a_constant_number_of_queries(people, django_assert_max_num_queries):
    """The import page's list is one query however many records are kept (their bulky
    record JSON is not read)."""
    ann, bob, _ = people
    kept = _keep(ann, short_game([ann, bob]))
    client = _client(ann)
    with django_assert_max_num_queries(5):
        assert client.get("/games/import/").status_code == 200
    ImportedRecord.objects.bulk_create([ImportedRecord(
        owner=ann, digest=f"{k:064x}", filename=f"copy-{k}.txt", mode=kept.mode,
        names=kept.names, moves=kept.moves, record={}) for k in range(30)])
    with django_assert_max_num_queries(5):
        page = client.get("/games/import/").content.decode()
    assert page.count("/delete/") == 31
