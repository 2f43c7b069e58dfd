"""Offline play against the computer (docs/offline.md): the engine package the browser runs,
the local table's frames and records, the upload that files a finished game in the archive,
the service worker and the manifest (installability)."""
from __future__ import annotations

import copy
import io
import json
import posixpath
import re
import uuid
import zipfile
from pathlib import Path

import pytest
from django.test import Client
from django.utils import timezone

from games import engine as E
from games import frames, offline_package, records
from games.local import table as T
from games.models import Game, GamePlayer, Seat
from tests.support.offline import URL
from tests.support.offline import play as _play
from tests.support.offline import post as _post

ROOT = Path(__file__).resolve().parents[2]


# ------------------------------------------------------------------ the engine package


def test_served_engine_package_is_built_from_the_source(client):
    """The package the site serves is the source of games/engine, games/bots and games/local,
    file for file (run `manage.py build_offline_engine` after changing them)."""
    response = client.get("/static/" + offline_package.STATIC_NAME)
    assert response.status_code == 200, "build_offline_engine has not been run"
    served = b"".join(response.streaming_content) if response.streaming else response.content
    with zipfile.ZipFile(io.BytesIO(served)) as zf:
        packaged = {name: zf.read(name) for name in zf.namelist()}
    source = {}
    for package in offline_package.PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            source[path.relative_to(ROOT).as_posix()] = path.read_bytes()
    source["games/__init__.py"] = b""
    assert packaged.keys() == source.keys()
    for name, data in source.items():
        assert packaged[name] == data, f"{name} differs from the source"
    assert served == offline_package.build_bytes()


def test_engine_package_is_deterministic_and_pure():
    assert offline_package.build_bytes() == offline_package.build_bytes()
    with zipfile.ZipFile(io.BytesIO(offline_package.build_bytes())) as zf:
        infos = zf.infolist()
    assert [i.filename for i in infos] == sorted(i.filename for i in infos)
    assert {i.date_time for i in infos} == {offline_package.FIXED_TIME}
    assert all(i.filename.endswith(".py") for i in infos)
    # nothing in it may need Django or a package Pyodide would have to download
    import ast
    import sys
    allowed = set(sys.stdlib_module_names) | {"games"}
    for name, data in offline_package.source_files():
        for node in ast.walk(ast.parse(data)):
            if isinstance(node, ast.Import):
                tops = {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and not node.level:
                tops = {(node.module or "").split(".")[0]}
            else:
                continue
            assert tops <= allowed, (name, tops)


# ------------------------------------------------------------------ the local table


@pytest.mark.parametrize("mode,computers", [("classic", 1), ("rummy", 3), ("oklahoma", 1)])
def test_local_game_plays_to_the_end_with_the_frames_of_online_play(mode, computers):
    doc, seen, record = _play(mode=mode, computers=computers)
    assert doc["status"] == "finished" and doc["ending"] == "normal"
    last = seen[-1]
    assert last["table"]["status"] == "finished"
    assert last["table"]["finish"]["scores"] == list(record["totals"])
    # the same keys as the server's frames (games/frames.py), the same view as view_for
    state = E.GameState.from_dict(doc["state"])
    online = frames.state_frame(version=1, table={}, seats=[], clock=None, state=state, seat=0,
                                last={"seat": 0, "action": "x"})
    assert set(online) <= set(last) | {"you"}
    assert set(last["view"]) == set(E.view_for(state, 0)) | {"seed"}
    assert [s["kind"] for s in last["seats"]] == ["user"] + ["bot"] * computers
    # each seat with the keys of the server's (a short label too: a phone's boxes for three
    # or four showed "Compute…" for every computer), every label its own
    bot = frames.seat_data(Seat(index=1, bot_level=2), timezone.now())
    assert all(set(s) == set(bot) for s in last["seats"]), last["seats"]
    shorts = [s["short_name"] for s in last["seats"]]
    assert len(set(shorts)) == len(shorts) and all(len(s) <= 9 for s in shorts[1:]), shorts
    # never another seat's cards
    for f in seen:
        for ev in f.get("events", []):
            assert ev.get("visibility", "public") in ("public", "seat") and \
                ev.get("seat") in (None, 0), ev
    # the record replays through the import path
    replayed, names = records.record_import(json.dumps(record))
    assert names[0] == "Ann" and len(names) == computers + 1


def test_local_table_refuses_bad_moves_and_settings():
    r = json.loads(T.handle(json.dumps({"op": "new", "config": {"mode": "classic", "level": 9}})))
    assert r == {"ok": False, "error": "The level must be 1 to 4."}
    r = json.loads(T.handle(json.dumps({"op": "new", "config": {
        "mode": "classic", "level": 1, "computers": 2}})))
    assert not r["ok"]
    r = json.loads(T.handle(json.dumps({"op": "new", "config": {
        "mode": "classic", "level": 1, "seed": 3}})))
    doc = r["doc"]
    bad = json.loads(T.handle(json.dumps({"op": "act", "doc": doc, "action": "discard:ZZ"})))
    assert not bad["ok"]
    assert not json.loads(T.handle("not json"))["ok"]
    assert not json.loads(T.handle(json.dumps({"op": "record", "doc": doc})))["ok"]


# ------------------------------------------------------------------ the upload



@pytest.mark.django_db(transaction=True)
def test_upload_stores_once_unrated_offline_and_counted(ann, ann_client):
    from leaderboards.stats.models import PlayerStats

    _doc, _f, record = _play(level=1)
    r = _post(ann_client, record)
    assert r.status_code == 201, r.content
    body = r.json()
    assert body["ok"] and body["created"]
    game = Game.objects.get(pk=body["game"]["id"])
    assert game.offline and not game.rated and game.table_id is None
    assert str(game.offline_id) == record["offline_id"]
    players = list(GamePlayer.objects.filter(game=game).order_by("seat"))
    assert players[0].user == ann and players[1].bot_level == 1
    assert [p.score for p in players] == record["totals"]
    assert game.record["engine"]["moves"]
    # twice: stored once
    again = _post(ann_client, record)
    assert again.status_code == 200 and again.json()["game"]["id"] == game.pk
    assert not again.json()["created"]
    assert Game.objects.filter(offline_id=game.offline_id).count() == 1
    # counted in the statistics against the computer (Easy), never rated
    stats = PlayerStats.objects.get(user=ann, mode="classic", opponents="easy")
    assert stats.games == 1
    from leaderboards.models import RatingChange
    assert not RatingChange.objects.filter(game=game).exists()
    # in the archive and on the game page, labelled
    archive = ann_client.get("/games/").content.decode()
    assert "offline, against the computer" in archive
    page = ann_client.get(game.get_absolute_url()).content.decode()
    assert "offline, against the computer" in page


@pytest.mark.django_db
def test_tampered_upload_is_refused_with_the_reason(ann_client):
    _doc, _f, record = _play(level=1, seed=11)
    forged = copy.deepcopy(record)
    forged["totals"] = [t + 100 if i == 0 else t for i, t in enumerate(forged["totals"])]
    r = _post(ann_client, forged)
    assert r.status_code == 400
    assert r.json()["error"]["code"] == "tampered"
    assert "differ" in r.json()["error"]["message"]
    cut = copy.deepcopy(record)
    cut["engine"]["moves"] = cut["engine"]["moves"][:-3]
    r = _post(ann_client, cut)
    assert r.status_code == 400 and r.json()["error"]["code"] == "tampered"
    human = copy.deepcopy(record)
    human["players"][1]["bot_level"] = None
    assert _post(ann_client, human).status_code == 400
    assert not Game.objects.exists()


@pytest.mark.django_db
def test_a_deal_already_in_the_archive_is_refused(ann_client, make_user):
    """The record of a game stored before, posted under a new offline id, was stored again
    as the uploader's own game: an online one (a private one made public under a new number)
    or an offline one counted twice."""
    from tests.support.records import finished_game

    _doc, _f, record = _play(level=1, seed=11)
    assert _post(ann_client, record).status_code == 201
    again = {**record, "offline_id": str(uuid.uuid4())}
    other = Client()
    other.force_login(make_user("carol"))
    for client in (ann_client, other):
        r = _post(client, again)
        assert r.status_code == 409, r.content
        assert r.json()["error"]["code"] == "replayed"
    assert Game.objects.count() == 1
    # a private game at a table, its record downloaded by its player and posted as offline
    ann = make_user("dora")
    online = finished_game([ann, None], seed=12, private=True, bot_level=1)
    _doc, _f, replay = _play(level=1, seed=12)
    dora = Client()
    dora.force_login(ann)
    r = _post(dora, replay)
    assert r.status_code == 409 and r.json()["error"]["code"] == "replayed"
    assert list(Game.objects.exclude(offline_id=None).values_list("seed", flat=True)) == [11]
    assert online.seed == 12
    # another mode on the same seed is another deal (the control)
    _doc, _f, rummy = _play(mode="rummy", level=1, seed=11)
    assert _post(ann_client, rummy).status_code == 201


@pytest.mark.django_db
def test_upload_bad_input_is_4xx_and_changes_nothing(ann_client, make_user):
    assert _post(ann_client, b"{not json").status_code == 400
    assert _post(ann_client, "[1, 2]").status_code == 400
    assert _post(ann_client, {"format": "ginsite-game/1"}).status_code == 400
    assert _post(ann_client, "[" * 100000 + "]" * 100000).status_code in (400, 413)
    big = b'{"x": "' + b"a" * 1_100_000 + b'"}'
    assert _post(ann_client, big).status_code == 413
    assert ann_client.get(URL).status_code == 405
    _doc, _f, record = _play(level=1, seed=5)
    assert _post(Client(), record).status_code == 401  # anonymous
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(make_user("bob"))
    assert _post(strict, record).status_code == 403  # no CSRF token
    assert not Game.objects.exists()


@pytest.mark.django_db
def test_numbers_out_of_range_in_an_upload_or_an_import_are_refused(ann_client):
    """A seed past 64 bits (the database's integer) was a 500 when the game was stored, and a
    JSON number of 1e400 (infinity once read) was one wherever a whole number stood."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    def upload(seed="5", moves="[]"):
        # resigned before any move: every seed replays, so the store is reached
        head = {"format": "ginsite-game/1", "offline_id": str(uuid.uuid4()), "mode": "classic",
                "ending": "resignation", "loser_seat": 0,
                "players": [{"seat": 0, "name": "me", "bot_level": None},
                            {"seat": 1, "name": "Computer (Easy)", "bot_level": 1}]}
        engine = ('{"format": "gin-record/1", "mode": "classic", '
                  f'"players": ["me", "Computer (Easy)"], "seed": {seed}, "moves": {moves}}}')
        return json.dumps(head)[:-1] + f', "engine": {engine}}}'


    # (the controls: the same document with a good seed is taken by both)
    assert _post(ann_client, upload()).status_code == 201
    taken = ann_client.post("/games/import/", {
        "record": SimpleUploadedFile("game.json", upload().encode())})
    assert taken.status_code == 302, taken.content[-500:]
    stored = Game.objects.count()
    bad = [upload(seed=str(seed)) for seed in (2 ** 63, -(2 ** 63) - 1, 10 ** 30, 1.5, "true")]
    for literal in ("1e400", "-1e400"):
        bad += [upload(seed=literal), upload(moves=f'[[0, "pass", {literal}]]'),
                upload(moves=f'[[{literal}, "pass", 1]]')]
    for body in bad:
        answer = _post(ann_client, body)
        assert answer.status_code == 400, (body, answer.content[:300])
        imported = ann_client.post("/games/import/", {
            "record": SimpleUploadedFile("game.json", body.encode())})
        assert imported.status_code == 400, (body, imported.status_code)
    assert Game.objects.count() == stored
    # the largest seed that fits is taken
    assert _post(ann_client, upload(seed=str(2 ** 63 - 1))).status_code == 201


@pytest.mark.django_db
def test_upload_of_another_accounts_game_and_resignation(ann_client, make_user):
    _doc, _f, record = _play(level=2, seed=21)
    assert _post(ann_client, record).status_code == 201
    other = Client()
    other.force_login(make_user("bob"))
    r = _post(other, record)
    assert r.status_code == 409 and r.json()["error"]["code"] == "conflict"
    _doc, _f, resigned = _play(level=1, seed=22, resign_after=4)
    assert resigned["ending"] == "resignation"
    r = _post(ann_client, resigned)
    assert r.status_code == 201, r.content
    game = Game.objects.get(pk=r.json()["game"]["id"])
    assert game.ending == "resignation" and game.loser_seat == 0
    fake = copy.deepcopy(resigned)
    fake["offline_id"] = str(uuid.uuid4())
    fake["loser_seat"] = 1
    assert _post(ann_client, fake).status_code == 400


@pytest.mark.django_db
def test_an_upload_with_rules_of_its_own_is_refused(ann_client):
    """Only the target may differ from the mode's rules (50 to 500, as the page offers). A
    resigned game has scored no hand, so its replay holds whatever rules the file claims:
    those wins counted in the statistics against the computer. A hand bigger than the deck
    was a 500 (IndexError at the deal)."""
    _doc, _f, resigned = _play(level=1, seed=23, resign_after=4)
    for change in ({"undercut_bonus": 5000}, {"knock_limit": 1000}, {"target": 1000},
                   {"target": 10}, {"hand_size": 26}, {"hand_size": 11}):
        fake = copy.deepcopy(resigned)
        fake["offline_id"] = str(uuid.uuid4())
        fake["engine"]["settings"].update(change)
        r = _post(ann_client, fake)
        assert r.status_code == 400, (change, r.content)
        assert r.json()["error"]["code"] == "tampered", change
    assert not Game.objects.exists()
    fine = copy.deepcopy(resigned)
    fine["engine"]["settings"]["target"] = 500
    assert _post(ann_client, fine).status_code == 201


# ------------------------------------------------------------------ the app shell


@pytest.mark.django_db
def test_manifest_is_installable_with_shortcuts_and_screenshots(client):
    from PIL import Image

    m = client.get("/manifest.webmanifest").json()
    for key in ("name", "short_name", "start_url", "scope", "display", "icons",
                "background_color", "theme_color"):
        assert m[key], key
    assert m["display"] in ("standalone", "fullscreen", "minimal-ui")
    sizes = {i["sizes"] for i in m["icons"] if i.get("purpose", "any") == "any"}
    assert {"192x192", "512x512"} <= sizes
    assert {s["name"] for s in m["shortcuts"]} == {"Play the computer", "Lobby"}
    assert any(s["url"] == "/play/offline/" for s in m["shortcuts"])
    for shot in m["screenshots"]:
        path = ROOT / "static" / shot["src"].removeprefix("/static/")
        with Image.open(path) as img:
            assert "x".join(map(str, img.size)) == shot["sizes"]
        assert path.stat().st_size < 400_000
    for icon in m["icons"]:
        with Image.open(ROOT / "static" / icon["src"].removeprefix("/static/")) as img:
            assert "x".join(map(str, img.size)) == icon["sizes"]


@pytest.mark.django_db
def test_service_worker_precaches_the_offline_game(client):
    r = client.get("/sw.js")
    assert r.status_code == 200
    assert r["Content-Type"].startswith("application/javascript")
    assert r["Service-Worker-Allowed"] == "/"
    assert "no-cache" in r["Cache-Control"] or "max-age=0" in r["Cache-Control"]
    body = r.content.decode()
    start = body.index("const PRECACHE = ") + len("const PRECACHE = ")
    urls = json.loads(body[start:body.index(";\n", start)])
    for needed in ("/play/offline/", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide.mjs",
                   offline_package.STATIC_NAME, "js/table/app.js", "js/offline/worker.js"):
        assert any(needed in u for u in urls), needed
    for u in urls:  # every one answers, or the install would fail
        assert client.get(u).status_code == 200, u
    assert "__BUILD__" not in body and "caches.delete" in body
    # every module the precached modules import is precached too (the table's import
    # ../attention.js and ../clipboard.js: offline, before any online visit, they were not)
    static = ROOT / "static"
    names = {u.split("/static/", 1)[1] for u in urls if "/static/" in u}
    plain = {re.sub(r"\.[0-9a-f]{12}\.js$", ".js", n) for n in names}
    for name in sorted(n for n in plain if n.startswith("js/") and n.endswith(".js")):
        source = (static / name).read_text()
        for target in re.findall(r'^import .*? from "(\.[^"]+)";', source, re.M):
            wanted = posixpath.normpath(posixpath.join(posixpath.dirname(name), target))
            assert wanted in plain, f"{name} imports {wanted}, which is not precached"


@pytest.mark.django_db
def test_the_offline_page_names_whose_games_the_device_keeps(client, ann, ann_client):
    """The page's data names the account (its id, "" signed out): a shared device's games
    are each kept for the account that started them (static/js/offline/stats.js ``mine``),
    and a wide statistics table scrolls on a phone instead of widening the page."""
    def data(c):
        html = c.get("/play/offline/").content.decode()
        raw = re.search(r'<script id="offline-data" type="application/json">(.*?)</script>',
                        html, re.S).group(1)
        return json.loads(raw), html
    mine, html = data(ann_client)
    assert mine["owner"] == str(ann.pk) and mine["signed_in"] is True
    assert data(client)[0]["owner"] == ""
    assert re.search(r'<div class="table-scroll"[^>]*>\s*<table id="offline-stats-table"', html)


@pytest.mark.django_db
def test_only_the_offline_page_allows_webassembly(client):
    offline = client.get("/play/offline/")
    assert offline.status_code == 200
    assert "'wasm-unsafe-eval'" in offline["Content-Security-Policy"]
    assert "'wasm-unsafe-eval'" not in client.get("/play/")["Content-Security-Policy"]
    assert "unsafe-eval'" not in offline["Content-Security-Policy"].replace(
        "'wasm-unsafe-eval'", "")


@pytest.mark.skipif(__import__("shutil").which("node") is None, reason="node is not installed")
def test_offline_js_unit_tests_pass():
    import subprocess

    proc = subprocess.run(["node", "--test", "static/js/offline/tests/"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "# fail 0" in proc.stdout, proc.stdout[-3000:]


@pytest.mark.django_db
def test_an_upload_whose_computer_moves_the_player_chose_is_refused(ann_client):
    """A legal game, but a computer's move is not its bot's: the player played it."""
    doc, _f, record = _play(level=1, seed=31)
    state = E.GameRecord.from_dict(record["engine"]).new_state()
    forged = None
    for i, move in enumerate(record["engine"]["moves"]):
        seat, action = move[0], move[1]
        if seat == 1:
            other = [str(a) for a in E.legal_actions(state) if str(a) != action]
            if other:  # the first computer move that had another choice: take it instead
                forged = (i, other[0])
                break
        state, _ = E.apply(state, action, seat)
    assert forged is not None
    i, action = forged
    cut = copy.deepcopy(record)
    # the forged move, then the game is resigned by the player (its moves stop there)
    cut["engine"]["moves"] = cut["engine"]["moves"][:i] + [
        [1, action, *cut["engine"]["moves"][i][2:]]]
    cut["engine"]["hand_results"] = [
        h for h in cut["engine"]["hand_results"] if h["hand_number"] < state.hand_number]
    cut["engine"]["result"] = None
    cut.update(ending="resignation", loser_seat=0, result=None, totals=None)
    r = _post(ann_client, cut)
    assert r.status_code == 400, r.content
    assert r.json()["error"] == {
        "code": "tampered", "message": f"Move {i + 1} is not the computer's move in that position."}
    assert not Game.objects.exists()


def test_a_local_hint_is_the_hard_computers_move_on_the_persons_turn():
    """Offline, as online (games/services/hints.py): the person may ask for a hint on their
    turn, a legal move thought from their seat's view; the computer's turn has none."""
    doc = json.loads(T.handle(json.dumps({"op": "new", "config": {
        "mode": "classic", "level": 1, "seed": 5}})))["doc"]
    for _ in range(8):
        state = E.GameState.from_dict(doc["state"])
        if state.to_act != T.PLAYER:
            refused = json.loads(T.handle(json.dumps({"op": "hint", "doc": doc})))
            assert refused == {"ok": False, "error": "It is not your turn."}
            doc = json.loads(T.handle(json.dumps({"op": "bot", "doc": doc})))["doc"]
            continue
        assert T.frame(doc)["you"]["can_hint"] is True
        r = json.loads(T.handle(json.dumps({"op": "hint", "doc": doc})))
        assert r["ok"] and r["hint"]["type"] == "hint" and r["hint"]["version"] == doc["version"]
        assert r["hint"]["action"] in {str(a) for a in E.legal_actions(state)}
        doc = json.loads(T.handle(json.dumps({"op": "act", "doc": doc,
                                              "action": r["hint"]["action"]})))["doc"]
