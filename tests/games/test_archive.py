"""The game archive, the privacy of private tables' games, the replay page and record import."""
from __future__ import annotations

import html
import json
from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import timezone

from games import records
from games.models import Game
from tests.support.records import finished_game

pytestmark = pytest.mark.django_db


@pytest.fixture
def trio(make_user):
    return make_user("alice"), make_user("bob"), make_user("carol")


def _ids(response):
    return [gp.game_id for gp in response.context["page"].object_list]


def test_archive_lists_and_filters(client, trio):
    alice, bob, carol = trio
    now = timezone.now()
    day = timedelta(days=1)
    g1 = finished_game([alice, bob], mode="classic", seed=1, rated=True, at=now - 3 * day)
    g2 = finished_game([alice, carol], mode="oklahoma", seed=2, at=now - 2 * day)
    g3 = finished_game([alice, None], mode="classic", seed=3, bot_level=3, at=now - day)
    g4 = finished_game([bob, carol], mode="classic", seed=4, at=now)
    client.force_login(alice)
    url = reverse("games:my_games")
    assert _ids(client.get(url)) == [g3.pk, g2.pk, g1.pk]
    assert _ids(client.get(url, {"mode": "oklahoma"})) == [g2.pk]
    assert _ids(client.get(url, {"opponent": "bob"})) == [g1.pk]
    assert _ids(client.get(url, {"opponent": "@Carol"})) == [g2.pk]
    assert _ids(client.get(url, {"opponent": "computer"})) == [g3.pk]
    assert _ids(client.get(url, {"opponent": "hard"})) == [g3.pk]
    assert _ids(client.get(url, {"opponent": "easy"})) == []
    # the computer as the archive names it (it had been "No player is called …")
    assert _ids(client.get(url, {"opponent": "Computer (Hard)"})) == [g3.pk]
    assert _ids(client.get(url, {"opponent": "computer 2 (hard)"})) == [g3.pk]
    assert _ids(client.get(url, {"rated": "rated"})) == [g1.pk]
    assert _ids(client.get(url, {"rated": "casual"})) == [g3.pk, g2.pk]
    day = (now - timedelta(days=2)).date()
    assert _ids(client.get(url, {"date_from": day, "date_to": day})) == [g2.pk]
    won = [g.pk for g in (g1, g2, g3) if g.players.get(user=alice).won]
    lost = [g.pk for g in (g1, g2, g3) if not g.players.get(user=alice).won]
    assert sorted(_ids(client.get(url, {"result": "win"}))) == sorted(won)
    assert sorted(_ids(client.get(url, {"result": "loss"}))) == sorted(lost)
    assert g4.pk not in _ids(client.get(url))


def test_archive_refuses_bad_filters(client, trio):
    alice, *_ = trio
    finished_game([alice, None], seed=5, bot_level=1)
    client.force_login(alice)
    url = reverse("games:my_games")
    for params, message in [
        ({"opponent": "nobody-here"}, "No player is called"),
        ({"opponent": "nobody-here"}, "a level (easy, medium, hard, expert)"),
        ({"opponent": "Computer (Grandmaster)"}, "No player is called"),
        # the archive's own player: every game had matched
        ({"opponent": "alice"}, "whose games these are"),
        ({"mode": "chess"}, "Select a valid choice"),
        ({"date_from": "2026-02-30"}, "Enter a valid date"),
        ({"date_from": "2026-03-02", "date_to": "2026-03-01"}, "after the"),
    ]:
        r = client.get(url, params)
        assert r.status_code == 400, params
        assert message in r.content.decode()
        assert _ids(r) == []


def test_archive_paginates_and_keeps_filters(client, trio):
    alice, bob, _ = trio
    now = timezone.now()
    for i in range(27):
        finished_game([alice, bob], seed=100 + i, at=now - timedelta(minutes=i))
    client.force_login(alice)
    r = client.get(reverse("games:my_games"), {"mode": "classic"})
    assert len(_ids(r)) == 25
    assert "mode=classic&amp;page=2" in r.content.decode()
    r2 = client.get(reverse("games:my_games"), {"mode": "classic", "page": 2})
    assert len(_ids(r2)) == 2 and not set(_ids(r2)) & set(_ids(r))
    # a page that is not one is said so, with the way to the first (it was page 1, silently)
    for page, message in (("3", "These games fill 2 pages."), ("0", "A page is a number"),
                          ("-1", "A page is a number"), ("abc", "A page is a number"),
                          ("9" * 30, "These games fill 2 pages.")):
        wrong = client.get(reverse("games:my_games"), {"mode": "classic", "page": page})
        assert wrong.status_code == 400 and not _ids(wrong), page
        body = wrong.content.decode()
        assert message in body and 'href="?mode=classic">See the first page' in body, page
    one = client.get(reverse("games:player_games", args=[bob.username]), {"page": "2",
                                                                          "mode": "oklahoma"})
    assert one.status_code == 400 and "These games fill 1 page." in one.content.decode()


def test_archive_needs_login(client):
    r = client.get(reverse("games:my_games"))
    assert r.status_code == 302 and "login" in r["Location"]


def test_private_games_only_for_their_players(client, trio):
    alice, bob, carol = trio
    public = finished_game([alice, bob], seed=6)
    private = finished_game([alice, bob], seed=7, private=True)
    archive = reverse("games:player_games", args=["alice"])
    # strangers and visitors: the public game only, and no page or record of the private one
    for viewer in (None, carol):
        client.logout()
        if viewer:
            client.force_login(viewer)
        assert _ids(client.get(archive)) == [public.pk]
        for name in ("games:game", "games:game_record_json", "games:game_record_txt"):
            assert client.get(reverse(name, args=[private.pk])).status_code == 404
        assert client.get(reverse("games:game", args=[public.pk])).status_code == 200
    # the other player of the private game sees it in alice's archive and can open it
    client.force_login(bob)
    assert sorted(_ids(client.get(archive))) == sorted([public.pk, private.pk])
    for name in ("games:game", "games:game_record_json", "games:game_record_txt"):
        assert client.get(reverse(name, args=[private.pk])).status_code == 200
    client.force_login(alice)
    assert sorted(_ids(client.get(reverse("games:my_games")))) == sorted([public.pk, private.pk])


def test_player_archive_unknown_player(client):
    assert client.get(reverse("games:player_games", args=["ghost"])).status_code == 404


def test_game_page_has_every_position(client, trio):
    alice, bob, _ = trio
    game = finished_game([alice, bob], mode="classic", seed=8)
    r = client.get(reverse("games:game", args=[game.pk]))
    assert r.status_code == 200
    data = r.context["replay"]
    moves = game.record["engine"]["moves"]
    assert len(data["frames"]) == len(moves) + 1
    # all hands face up: every frame holds every seat's cards, 10 or 11 per seat in play
    first = data["frames"][0]
    assert [len(h) // 2 for h in first["hands"]] == [10, 10]
    showdowns = [f for f in data["frames"] if f.get("showdown")]
    assert len(showdowns) == len(game.hands)
    assert [row["hand"] for row in data["sheet"]] == [h["hand_number"] for h in game.hands]
    # (per game of the sheet: Classic has one)
    assert data["sheet"][-1]["running"] == [game.final["result"]["columns"][0]["hand_points"]]
    html = r.content.decode()
    assert 'id="replay-data"' in html and "js/replay/viewer.js" in html
    assert "<script>" not in html  # CSP: data as JSON, code from static files


def test_records_download(client, trio):
    alice, bob, _ = trio
    game = finished_game([alice, bob], seed=9)
    got = client.get(reverse("games:game_record_json", args=[game.pk]))
    data = json.loads(got.content)
    assert data["format"] == "ginsite-game/1" and data["engine"]["format"] == "gin-record/1"
    # a download, saved under its name (it was "inline": a script fetching it, or a browser
    # ignoring the link's download attribute, showed it in the page)
    assert got["Content-Disposition"] == f'attachment; filename="game-{game.pk}.json"'
    got = client.get(reverse("games:game_record_txt", args=[game.pk]))
    assert "Format: gin-record/1" in got.content.decode()
    assert got["Content-Disposition"] == f'attachment; filename="game-{game.pk}.txt"'


def _upload(client, content: str, name="game.json"):
    return client.post(reverse("games:game_import"), {
        "record": SimpleUploadedFile(name, content.encode(), content_type="application/json"),
    })


@pytest.mark.parametrize("kind", ["site-json", "engine-json", "text"])
def test_import_shows_a_good_record(client, trio, kind):
    alice, bob, _ = trio
    game = finished_game([alice, bob], seed=10)
    before = Game.objects.count()
    if kind == "site-json":
        content = json.dumps(records.record_json(game))
    elif kind == "engine-json":
        content = json.dumps(game.record["engine"])
    else:
        content = records.record_text(game)
    r = _upload(client, content)
    assert r.status_code == 200, r.content.decode()[:2000]
    assert len(r.context["replay"]["frames"]) == len(game.record["engine"]["moves"]) + 1
    assert Game.objects.count() == before


def _tampered(game):
    """Edited records, each with the message the import must give."""
    site = records.record_json(game)
    out = []
    a = json.loads(json.dumps(site))
    a["engine"]["hand_results"][0]["points"] += 1
    out.append(("hand-points", json.dumps(a), "does not replay"))
    b = json.loads(json.dumps(site))
    b["totals"] = [t + 10 for t in b["totals"]]
    out.append(("totals", json.dumps(b), "totals differ"))
    c = json.loads(json.dumps(site))
    moves = c["engine"]["moves"]
    i = next(k for k, m in enumerate(moves) if m[1].startswith("discard:"))
    moves[i][1] = "discard:" + ("AS" if moves[i][1] != "discard:AS" else "KD")
    out.append(("move", json.dumps(c), "does not replay"))
    d = json.loads(json.dumps(site))
    d["engine"]["seed"] += 1
    out.append(("seed", json.dumps(d), "does not replay"))
    text = records.record_text(game)
    lines = text.splitlines()
    k = next(j for j, line in enumerate(lines) if line.startswith("= hand 1:"))
    lines[k] = lines[k].rsplit(" ", 1)[0] + " 999"
    out.append(("summary", "\n".join(lines), "does not match the replay"))
    res = next(j for j, line in enumerate(lines) if line.startswith("Result:"))
    lines2 = text.splitlines()
    lines2[res] = "Result: 1 2"
    out.append(("result-line", "\n".join(lines2), "does not match the replay"))
    out.append(("garbage", "{not json", "not valid JSON"))
    out.append(("empty", "   ", "empty"))
    out.append(("other-json", "[1, 2]", "The JSON is not a game record."))
    # a JSON list was read as the text form: "line 1: expected 'SEAT ACTION [@MS]'"
    out.append(("deep-json", "[" * 100 + "]" * 100, "nested more than"))
    out += _hostile(site, text)
    return out


def _hostile(site, text):
    """Files an outside audit sent: names that made a 109 KB file a 16 MB page (every step
    of the replay shows them), names that were lists, a second header that replaced the
    first, times that are not whole, and fields whose refusal quoted Python."""
    out = []
    lines = text.splitlines()
    players = next(j for j, line in enumerate(lines) if line.startswith("Players:"))
    long = list(lines)
    long[players] = "Players: " + json.dumps(["B" * 100_000, "Computer (Easy)"])
    out.append(("long-name", "\n".join(long), "player 1's name has 100,000 characters"))
    listed = list(lines)
    listed[players] = 'Players: [["x"], {"a": 1}]'
    out.append(("list-name", "\n".join(listed), "player 1's name must be text"))
    twice = list(lines)
    twice.insert(players, "Mode: straight")
    out.append(("mode-twice", "\n".join(twice), "a second 'Mode' header"))
    a = json.loads(json.dumps(site))
    a["players"][0]["name"] = "B" * 151
    out.append(("site-long-name", json.dumps(a), "at most 150"))
    b = json.loads(json.dumps(site))
    b["players"][1]["name"] = ["x"]
    out.append(("site-list-name", json.dumps(b), "player 2's name must be text"))
    for field, value, message in [
            ("settings", "x", "the 'settings' field must be an object"),
            ("hand_results", "x", "the 'hand_results' field must be a list"),
            ("hand_results", ["x"], "the 'hand_results' field has a wrong value"),
            ("result", "x", "the 'result' field has a wrong value"),
            ("players", None, "the players must be a list of names"),
            ("moves", [[0, "draw:stock", -5]], "move 1's time must be a whole number"),
            ("moves", [[0, "draw:stock", 1.5]], "move 1's time must be a whole number"),
            ("moves", [["0", "draw:stock"]], "move 1's seat must be a whole number")]:
        c = json.loads(json.dumps(site))
        c["engine"][field] = value
        out.append((f"engine-{field}-{value!r}", json.dumps(c), message))
    # a Classic game's settings relabelled as another mode's: it replayed as a Straight Gin
    # with knocks and was shown as one (an outside audit)
    for mode in ("straight", "hollywood"):
        d = json.loads(json.dumps(site))
        d["mode"] = d["engine"]["mode"] = mode
        if isinstance(d["engine"].get("result"), dict) and "mode" in d["engine"]["result"]:
            d["engine"]["result"]["mode"] = mode
        out.append((f"relabelled-{mode}", json.dumps(d),
                    f"the settings are for 'classic', but the record's mode is '{mode}'"))
        # the engine's record alone, as the audit sent it (the old code kept this one)
        out.append((f"relabelled-engine-{mode}", json.dumps(d["engine"]),
                    f"the settings are for 'classic', but the record's mode is '{mode}'"))
    for scalar in ("null", '"hello"', "3"):
        out.append((f"json-{scalar}", scalar, "The JSON is not a game record."))
    # a seed that is text was "a number far too long", and Python's NaN was taken (an audit)
    e = json.loads(json.dumps(site))
    e["engine"]["seed"] = "abc"
    out.append(("seed-text", json.dumps(e), "Seed must be a whole number, not 'abc'"))
    f = json.loads(json.dumps(site))
    f["exported_at"] = float("nan")
    out.append(("nan", json.dumps(f), "not valid JSON"))
    return out


def test_import_refuses_edited_records(client, trio):
    alice, bob, _ = trio
    game = finished_game([alice, bob], seed=11)
    before = Game.objects.count()
    for name, content, message in _tampered(game):
        r = _upload(client, content)
        assert r.status_code == 400, name
        body = html.unescape(r.content.decode())
        assert message in body, (name, body[body.find("errorlist"):][:400])
        assert "replay-data" not in body
        # said as a person reads it, never in Python's words, and short
        assert "indices" not in body and "NoneType" not in body and len(body) < 60_000
    assert Game.objects.count() == before


def test_import_refuses_oversized_and_binary_files(client):
    r = _upload(client, "x" * 1_000_001)
    assert r.status_code == 400 and "larger than 1 MB" in r.content.decode()
    r = client.post(reverse("games:game_import"), {
        "record": SimpleUploadedFile("a.bin", b"\xff\xfe\x00bad", "application/octet-stream")})
    assert r.status_code == 400 and "not UTF-8" in r.content.decode()
    r = client.post(reverse("games:game_import"), {})
    assert r.status_code == 400


def test_the_finish_path_copies_the_games_facts(client, trio):
    """A private table's game, finished by a resignation through the services: its seats
    carry the game's mode, rating, time and privacy, so the archive hides it from others."""
    from games import services
    from games.models import GamePlayer, Room
    from games.rooms import ensure_default_rooms

    alice, bob, carol = trio
    ensure_default_rooms(Room)
    room = Room.objects.get(slug="oklahoma")
    table = services.table_create(user=alice, room=room, private=True)
    services.table_sit(table_id=table.pk, user=bob, invite=table.invite_token)
    services.table_resign(table_id=table.pk, user=bob)
    game = Game.objects.get(table=table)
    seats = list(GamePlayer.objects.filter(game=game))
    assert {(s.mode, s.rated, s.private, s.finished_at) for s in seats} == {
        ("oklahoma", False, True, game.finished_at)}
    client.force_login(carol)
    assert _ids(client.get(reverse("games:player_games", args=["alice"]))) == []
    client.force_login(bob)
    assert _ids(client.get(reverse("games:player_games", args=["alice"]))) == [game.pk]
    client.force_login(alice)
    r = client.get(reverse("games:game", args=[game.pk]))
    assert r.status_code == 200 and r.context["replay"]["frames"]


def test_migration_copies_the_facts_of_existing_games(trio):
    import importlib

    from django.apps import apps

    from games.models import GamePlayer

    alice, bob, _ = trio
    private = finished_game([alice, bob], seed=12, private=True, rated=True)
    public = finished_game([alice, bob], seed=13, mode="straight")
    GamePlayer.objects.update(mode="", rated=False, private=False, finished_at=None)
    migration = importlib.import_module("games.migrations.0007_gameplayer_archive_fields")
    migration.copy_game_facts(apps, None)
    for game, private_flag in ((private, True), (public, False)):
        rows = set(GamePlayer.objects.filter(game=game).values_list(
            "mode", "rated", "private", "finished_at"))
        assert rows == {(game.mode, game.rated, private_flag, game.finished_at)}


def test_import_refuses_a_huge_upload_before_reading_it(client):
    r = client.post(reverse("games:game_import"), {
        "record": SimpleUploadedFile("big.json", b"{" + b" " * 2_100_000 + b"}")})
    assert r.status_code == 400 and "larger than 1 MB" in r.content.decode()


def test_import_refuses_too_many_moves(client, trio, monkeypatch):
    alice, bob, _ = trio
    game = finished_game([alice, bob], seed=14)
    monkeypatch.setattr(records, "MAX_IMPORT_MOVES", 10)
    r = _upload(client, records.record_text(game), name="game.txt")
    assert r.status_code == 400 and "more than 10 moves" in r.content.decode()


def test_a_game_without_an_engine_record_shows_its_sheet(client, trio):
    alice, bob, _ = trio
    game = finished_game([alice, bob], seed=15)
    game.record = {**game.record, "engine": None}
    game.save(update_fields=["record"])
    r = client.get(reverse("games:game", args=[game.pk]))
    assert r.status_code == 200 and r.context["replay"] is None
    html = r.content.decode()
    assert "Score sheet" in html and "replay-data" not in html


def test_final_scores_are_listed_in_finishing_order(client, trio):
    """The final list is numbered: its numbers are the places (ties share one), not seats."""
    import re

    from tests.support.records import make_game

    ann, ben, cat = trio
    game = make_game([ann, ben, cat], mode="rummy", places=[3, 1, 1])
    page = client.get(reverse("games:game", args=[game.pk])).content.decode()
    final = page.split('<ol class="final-list">', 1)[1].split("</ol>", 1)[0]
    rows = re.findall(r'<li value="(\d)"><a href="/u/(\w+)/">', final)
    assert rows == [("1", ben.username), ("1", cat.username), ("3", ann.username)]


def test_the_record_pages_sheet_names_each_result_in_words(client, trio):
    """Its results were the stored keys, capitalised: "Big_gin", "Out", "Drawn"."""
    from games.models import Game as G
    from tests.support.records import hand, store_game

    alice, bob, _ = trio
    game = store_game([alice, bob], scores=[80, 0], winner=0, hands=[
        hand(1, "big_gin", 0, 47), hand(2, "drawn", None), hand(3, "undercut", 0, 33)])
    assert G.objects.filter(pk=game.pk).exists()
    client.force_login(alice)
    html = client.get(game.get_absolute_url()).content.decode()
    assert "Big gin: alice +47" in html and "Drawn hand" in html
    assert "Big_gin" not in html
    # the sheet says what its numbers are, and where a game that was not played out stopped
    assert "every player&#x27;s total after it." in html or "every player's total after it." in html
    resigned = store_game([alice, bob], scores=[0, 47], winner=1, hands=[
        hand(1, "big_gin", 1, 47)], ending="resignation", loser_seat=0)
    html = client.get(resigned.get_absolute_url()).content.decode()
    assert "ended by resignation in hand 2, which was not scored" in html


def test_a_resigned_games_record_imports_as_stopping_before_the_end(
        client, trio, rooms, django_capture_on_commit_callbacks):
    """Its page read "the game was not finished" beside a game page saying "Resignation".
    The site's JSON says who resigned; the text form, the same game, leads to that row."""
    from games import services
    from tests.support.tables import play_then_resign

    alice, bob, _ = trio
    with django_capture_on_commit_callbacks(execute=True):
        table = services.table_create(user=alice, room=rooms["classic"])
        services.table_sit(table_id=table.pk, user=bob)
        play_then_resign(table.pk, {0: alice, 1: bob}, 4, alice)
    game = Game.objects.get(table=table)
    client.force_login(alice)
    for ext in ("json", "txt"):
        content = client.get(f"/games/{game.pk}/record.{ext}").content.decode()
        r = _upload(client, content, name=f"game.{ext}")
        assert r.status_code == 302, ext
        page = client.get(r["Location"]).content.decode()
        assert "the record stops where alice resigned (as the file says)" in page, ext
        assert "was not finished" not in page
    assert "stops before the end" in client.get("/games/import/").content.decode()


def test_pages_answer_head_as_get(client, trio):
    """HEAD was 405 on every page (the views took GET alone): link checkers and monitors ask
    with HEAD. It answers as GET would, without the body."""
    alice, bob, _ = trio
    game = finished_game([alice, bob], seed=5)
    for url in ("/", "/play/", "/rules/", "/leaderboards/", f"/games/{game.pk}/",
                f"/games/{game.pk}/record.json", f"/games/{game.pk}/record.txt",
                f"/u/{alice.username}/"):
        get, head = client.get(url), client.head(url)
        assert head.status_code == get.status_code == 200, url
        assert head.content == b"" and head["Content-Type"] == get["Content-Type"], url
    assert client.head("/games/999999/").status_code == 404
    # the pages with a form too: HEAD reads them, and never takes the POST path
    client.force_login(alice)
    for url in ("/games/import/", "/settings/api/", "/tournaments/new/",
                f"/messages/with/{bob.username}/"):
        get, head = client.get(url), client.head(url)
        assert head.status_code == get.status_code == 200, url
        assert head.content == b"", url


def test_an_import_with_rules_of_its_own_says_so(client, trio):
    """A record may change its mode's settings; its page said only "Straight Gin" for a
    Straight Gin with knocking on (an outside audit). It now names what differs, on the
    page shown before keeping and on the kept record's page."""
    alice = trio[0]
    text = ('Format: gin-record/1\nMode: straight\nPlayers: ["ann", "bob"]\nSeed: 3\n'
            'Settings: {"knocking": true, "target": 50}\n')
    r = _upload(client, text, name="variant.txt")
    page = html.unescape(r.content.decode())
    assert r.status_code == 200, page[:300]
    assert "Straight Gin (rules of its own: knocking on)" in page
    client.force_login(alice)
    kept = client.get(_upload(client, text, name="variant.txt")["Location"])
    assert "Straight Gin (rules of its own: knocking on)" in html.unescape(
        kept.content.decode())
    plain = _upload(client, 'Format: gin-record/1\nMode: straight\nPlayers: ["a", "b"]\n'
                            'Seed: 4\n', name="plain.txt")
    assert "rules of its own" not in client.get(plain["Location"]).content.decode()


def test_a_seat_without_a_name_is_called_by_its_number(client):
    r = _upload(client, 'Format: gin-record/1\nMode: classic\nPlayers: ["", " "]\nSeed: 4\n',
                name="blank.txt")
    page = html.unescape(r.content.decode())
    assert r.status_code == 200
    assert "Classic Gin, <bdi>Seat 1</bdi>, <bdi>Seat 2</bdi>, 0 moves" in page


def test_a_name_with_a_direction_override_is_isolated(client, trio):
    """A right-to-left override in a player's name turned the text after it around ("a‮b, c"
    in the list of imported records): each name is isolated (``<bdi>``), as elsewhere."""
    client.force_login(trio[0])
    text = ('Format: gin-record/1\nMode: classic\nPlayers: ["a\\u202eb", "c"]\nSeed: 4\n')
    kept = client.get(_upload(client, text, name="rlo.txt")["Location"]).content.decode()
    assert "<bdi>a\u202eb</bdi>, <bdi>c</bdi>" in kept
    listing = client.get(reverse("games:game_import")).content.decode()
    assert "<bdi>a\u202eb</bdi>, <bdi>c</bdi>" in listing and "<bdi>rlo.txt</bdi>" in listing
