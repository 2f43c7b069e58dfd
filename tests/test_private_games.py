"""A game at a private table is nobody else's business: after one is played to the end
(through the services, with every receiver and task run), no page or JSON answer that a
non-player can reach (anonymous, or logged in as a third person who is a contact of both
players) shows its id, its date or who played whom, and the players' public pages (profile,
archive, export, leaderboards) read exactly as they did before it was played: no count,
figure or rating moved. While it is being played, the contacts' presence does not point at
the table either.

Every URL pattern of the site is enumerated: parameter-free ones are requested as they are;
each pattern with parameters must have an entry in ``FILLED`` (the values to put in), so a new
page cannot be added without the scan covering it."""
from __future__ import annotations

import json
import re
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from core import channels as core_channels
from games import records as games_records
from games import services as games_services
from games.exceptions import AnalysisNotFound, InvalidSettings
from games.models import Analysis, Game, GamePlayer, ImportedRecord, Room, Seat, Table
from games.rooms import ensure_default_rooms
from games.services import analysis as games_analysis
from leaderboards.models import LeaderboardEntry, Rating, RatingChange
from leaderboards.ratings import tasks as leaderboards_tasks
from leaderboards.stats.models import PlayerStats
from leaderboards.tournaments import services as tournaments_services
from social import notify as social_notify
from social import services as social_services
from social.presence import presence_of
from tests.support.tables import play_one
from tests.support.urls import has_params, url_routes

# Patterns skipped, with the reason. Nothing else may be skipped.
SKIPPED_PREFIXES = {
    "admin/": "staff only: everybody else is sent to the admin's login page",
    "media/": "uploaded avatars, files named by their owner",
}

# Values for the patterns with parameters: pattern (as written, without the leading "/")
# -> a function of the scenario giving the paths to request.
FILLED = {
    "u/<str:username>/": lambda s: [f"/u/{u.username}/" for u in s["people"]],
    "u/<str:username>/games/": lambda s: [f"/u/{u.username}/games/" for u in s["people"]]
    + [f"/u/{s['a'].username}/games/?opponent={s['b'].username}"],
    "play/<slug:slug>/": lambda s: ["/play/classic/"],
    "api/docs/<slug:page>/": lambda s: ["/api/docs/protocol/", "/api/docs/records/"],
    "play/<slug:slug>/tables.json": lambda s: ["/play/classic/tables.json"],
    "play/<slug:slug>/new/": lambda s: ["/play/classic/new/"],
    "play/<slug:slug>/quick/": lambda s: ["/play/classic/quick/"],
    "tables/<id:table_id>/": lambda s: [f"/tables/{s['table'].pk}/"],
    "tables/<id:table_id>/sit/": lambda s: [f"/tables/{s['table'].pk}/sit/"],
    "tables/<id:table_id>/leave/": lambda s: [f"/tables/{s['table'].pk}/leave/"],
    "tables/<id:table_id>/bot/": lambda s: [f"/tables/{s['table'].pk}/bot/"],
    "tables/<id:table_id>/close/": lambda s: [f"/tables/{s['table'].pk}/close/"],
    "games/<id:game_id>/": lambda s: [f"/games/{_game_id(s)}/"],
    "games/<id:game_id>/record.json": lambda s: [f"/games/{_game_id(s)}/record.json"],
    "games/<id:game_id>/record.txt": lambda s: [f"/games/{_game_id(s)}/record.txt"],
    "games/<id:game_id>/analysis/": lambda s: [f"/games/{_game_id(s)}/analysis/"],
    "games/<id:game_id>/analysis.json": lambda s: [f"/games/{_game_id(s)}/analysis.json"],
    # Zelda's imported record (once she has imported one): hers alone
    "games/import/<id:record_id>/": lambda s: [f"/games/import/{_imported_id(s)}/"],
    "games/import/<id:record_id>/delete/": lambda s: [
        f"/games/import/{_imported_id(s)}/delete/"],
    "games/import/<id:record_id>/analysis/": lambda s: [
        f"/games/import/{_imported_id(s)}/analysis/"],
    "games/import/<id:record_id>/analysis.json": lambda s: [
        f"/games/import/{_imported_id(s)}/analysis.json"],
    "games/import/<id:record_id>/record.<str:fmt>": lambda s: [
        f"/games/import/{_imported_id(s)}/record.{fmt}" for fmt in ("json", "txt")],
    "messages/with/<str:username>/": lambda s: [f"/messages/with/{u.username}/"
                                                for u in s["players"]],
    "messages/c/<id:conversation_id>/history/": lambda s: ["/messages/c/1/history/"],
    "messages/c/<id:conversation_id>/read/": lambda s: ["/messages/c/1/read/"],
    "messages/c/<id:conversation_id>/delete/": lambda s: ["/messages/c/1/delete/"],
    "contacts/add/<str:username>/": lambda s: [f"/contacts/add/{s['a'].username}/"],
    "contacts/requests/<id:request_id>/accept/": lambda s: ["/contacts/requests/1/accept/"],
    "contacts/requests/<id:request_id>/decline/": lambda s: ["/contacts/requests/1/decline/"],
    "contacts/requests/<id:request_id>/cancel/": lambda s: ["/contacts/requests/1/cancel/"],
    "contacts/remove/<str:username>/": lambda s: [f"/contacts/remove/{s['a'].username}/"],
    "contacts/block/<str:username>/": lambda s: [f"/contacts/block/{s['a'].username}/"],
    "contacts/unblock/<str:username>/": lambda s: [f"/contacts/unblock/{s['a'].username}/"],
    "invitations/<id:invitation_id>/accept/": lambda s: ["/invitations/1/accept/"],
    "invitations/<id:invitation_id>/decline/": lambda s: ["/invitations/1/decline/"],
    "invitations/<id:invitation_id>/cancel/": lambda s: ["/invitations/1/cancel/"],
    "tournaments/<id:tournament_id>/": lambda s: [s["tournament"].get_absolute_url()],
    "tournaments/<id:tournament_id>/live/": lambda s: [
        f"/tournaments/{s['tournament'].pk}/live/"],
    "tournaments/<id:tournament_id>/enter/": lambda s: [
        f"/tournaments/{s['tournament'].pk}/enter/"],
    "tournaments/<id:tournament_id>/withdraw/": lambda s: [
        f"/tournaments/{s['tournament'].pk}/withdraw/"],
    "tournaments/<id:tournament_id>/cancel/": lambda s: [
        f"/tournaments/{s['tournament'].pk}/cancel/"],
    # Challenges (issue 25): the challenged player's endpoints, for a challenge that is not
    # theirs; the bot API's need a token (the third person has only a session).
    "challenges/send/<str:username>/": lambda s: [f"/challenges/send/{s['a'].username}/"],
    "challenges/<id:challenge_id>/accept/": lambda s: ["/challenges/1/accept/"],
    "challenges/<id:challenge_id>/decline/": lambda s: ["/challenges/1/decline/"],
    "challenges/<id:challenge_id>/cancel/": lambda s: ["/challenges/1/cancel/"],
    "api/bot/challenges/<id:challenge_id>/accept/": lambda s: ["/api/bot/challenges/1/accept/"],
    "api/bot/challenges/<id:challenge_id>/decline/": lambda s: [
        "/api/bot/challenges/1/decline/"],
    "api/bot/challenges/<id:challenge_id>/cancel/": lambda s: ["/api/bot/challenges/1/cancel/"],
    "settings/api/tokens/<id:token_id>/revoke/": lambda s: ["/settings/api/tokens/1/revoke/"],
    # the export of each player's games (newline JSON, compact: see the needles below)
    "api/games/export/<str:username>/": lambda s: [f"/api/games/export/{u.username}/"
                                                   for u in s["people"]],
    # allauth's pages with keys: a wrong key is all a visitor can have.
    r"accounts/confirm-email/(?P<key>[-:\w]+)/": lambda s: ["/accounts/confirm-email/nokey/"],
    "accounts/password/reset/key/(?P<uidb36>[0-9A-Za-z]+)-(?P<key>.+)/": lambda s: [
        "/accounts/password/reset/key/1-nokey/"],
}

# Requests that end the third person's session: asked last.
LAST = {"accounts/logout/"}


def _game_id(scenario) -> int:
    """The private game's id (while it is played: an id no game has)."""
    return scenario["game"].pk if scenario.get("game") else 999_999


def _imported_id(scenario) -> int:
    """Zelda's imported record's id (before she imports it: an id no record has)."""
    return scenario["imported"].pk if scenario.get("imported") else 999_999


IMPORTED_FILE = "zelda-private-notes.txt"


def _paths(scenario) -> list[str]:
    paths, unknown, last = [], [], []
    for route in dict.fromkeys(url_routes()):
        if any(route.startswith(p) for p in SKIPPED_PREFIXES):
            continue
        if route in FILLED:
            paths.extend(FILLED[route](scenario))
        elif has_params(route):
            unknown.append(route)
        elif route in LAST:
            last.append("/" + route)
        else:
            paths.append("/" + route)
    assert not unknown, f"URL patterns the privacy scan does not cover (add to FILLED): {unknown}"
    return paths + last


def _date_strings(when) -> list[str]:
    local = timezone.localtime(when)
    return [f"{local:%d %b %Y}", f"{local.day} {local:%b %Y}", f"{local:%Y-%m-%d}",
            f"{local.day} {local:%b}<", f"{local:%d %b}<", f"{local:%b} {local.day},"]


def _leaks(body: str, scenario, path: str) -> list[str]:
    game, table = scenario.get("game"), scenario["table"]
    needles = [scenario["invite"]]
    if game is not None:
        needles += [f"/games/{game.pk}/", f"game {game.pk}<", f"game {game.pk}\"",
                    f"\"game_id\": {game.pk}", f"\"game\": {game.pk}",
                    f"\"game_id\":{game.pk},"]
    imported = scenario.get("imported")
    if imported is not None:
        needles += [IMPORTED_FILE, f"/games/import/{imported.pk}/", f"\"record\": {imported.pk}"]
    if not path.startswith(f"/tables/{table.pk}/"):  # (the table's own pages name themselves)
        needles.append(f"/tables/{table.pk}/")
    found = [n for n in needles if n in body]
    if game is not None:
        found += [d for d in _date_strings(game.finished_at) if d in body]
    a, b = scenario["a"], scenario["b"]
    for me, other in ((a, b), (b, a)):
        # (a query string's own words, such as ?opponent=, are echoed in the filter form)
        if "?" not in path and path.startswith((f"/u/{me.username}/",
                                                f"/messages/with/{me.username}/")):
            found += [n for n in (other.username, other.public_name) if n in body]
    if path.startswith((f"/tables/{table.pk}/", f"/games/{_game_id(scenario)}/")):
        found += [n for u in (a, b) for n in (u.username, u.public_name) if n in body]
    if path.startswith("/play/") and scenario.get("playing"):
        # the room's "online" list would name the two at the private table, together (the
        # room's leaderboard names them too, for their public games)
        online = body.split('id="online-list"', 1)[1].split("</ul>", 1)[0] \
            if 'id="online-list"' in body else body
        found += [n for u in (a, b) for n in (u.username, u.public_name) if n in online]
    return found


def _scan(client: Client, scenario, who: str) -> list[str]:
    problems = []
    for path in _paths(scenario):
        for method in ("get", "post"):
            if method == "post" and (path in ("/accounts/logout/",) or
                                     path.startswith("/contacts/")):
                continue  # a POST here would change the third person's own data
            response = getattr(client, method)(path, HTTP_ACCEPT="application/json"
                                               if path.endswith(".json") else "text/html")
            assert response.status_code < 500, (who, method, path, response.status_code)
            body = b"".join(response.streaming_content) if response.streaming \
                else response.content
            text = body.decode("utf-8", "replace")
            text += " " + response.get("Location", "")
            leaks = _leaks(text, scenario, path)
            if leaks:
                problems.append(f"{who} {method.upper()} {path} ({response.status_code}): {leaks}")
    return problems


def _visible_text(html: str) -> str:
    """A page's words as a reader sees them (tags, the CSRF token and blank runs left out)."""
    html = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S)
    html = re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", html)
    text = " ".join(re.sub(r"<[^>]+>", " ", html).split())
    # the profile's clock moves on (read after the tags are gone: the time sits in its own
    # element, which the pattern on the HTML never matched, so a minute turning between the
    # two reads failed the comparison)
    text = re.sub(r"Local time \d{1,2}:\d\d", "Local time", text)
    # nor when the boards were computed: the scan computes them again after the game, and a
    # minute turning between the two runs (12:04, then 12:05) failed the comparison
    return re.sub(r"Computed \d{1,2} \w{3} \d{4}, \d\d:\d\d \w+ \([^)]*\)", "Computed",
                  text)


def _public_pages(players) -> dict[str, str]:
    """What anybody (anonymous) reads about ``players``: their profiles, archives and
    exports, and every leaderboard of the mode."""
    client = Client()
    paths = [p for u in players for p in (f"/u/{u.username}/", f"/u/{u.username}/games/",
                                          f"/api/games/export/{u.username}/")]
    paths += [f"/leaderboards/?mode=classic&period={period}"
              for period in ("all", "week", "month")]
    pages = {}
    for path in paths:
        response = client.get(path)
        assert response.status_code == 200, (path, response.status_code)
        body = b"".join(response.streaming_content) if response.streaming \
            else response.content
        pages[path] = _visible_text(body.decode())
    return pages


def _first_difference(before: dict[str, str], after: dict[str, str]) -> str:
    for path, text in before.items():
        if after[path] != text:
            at = next((i for i, (x, y) in enumerate(zip(text, after[path], strict=False))
                       if x != y), min(len(text), len(after[path])))
            return f"{path} changed: {text[max(0, at - 80):at + 80]!r} -> " \
                f"{after[path][max(0, at - 80):at + 80]!r}"
    return "no difference"


def _befriend(a, b):
    social_services.contact_request_send(sender=a, recipient=b)
    req = b.contact_requests_received.get()
    social_services.contact_request_accept(user=b, request_id=req.pk)


@pytest.mark.django_db
def test_a_private_game_is_invisible_to_everybody_else(make_user, monkeypatch,
                                                       django_capture_on_commit_callbacks):
    ensure_default_rooms(Room)
    # Every notification frame sent to anybody (the notification sockets' only source).
    notified: dict[int, list[dict]] = {}

    async def record(user_ids, frame):
        for uid in user_ids:
            notified.setdefault(int(uid), []).append(frame)

    monkeypatch.setattr(social_notify, "anotify_users", record)
    a = make_user("zeldaprivate", display_name="Zelda Quiet")
    b = make_user("yurisecret", display_name="Yuri Hush")
    watcher = make_user("watcher")
    staff = make_user("organiser", is_staff=True)
    for other in (a, b):
        _befriend(watcher, other)
    # A public game of each player against someone else, so their charts and archives exist;
    # Zelda loses hers, so that the private game is her best game in her statistics.
    somebody = make_user("somebody")
    room = Room.objects.get(slug="classic")
    with django_capture_on_commit_callbacks(execute=True):
        for p in (a, b):
            t = games_services.table_create(user=p, room=room, rated=True)
            games_services.table_sit(table_id=t.pk, user=somebody)
            for _ in range(2):
                play_one(t.pk, {0: p, 1: somebody})
            games_services.table_resign(table_id=t.pk, user=a if p == a else somebody)
    tournament = tournaments_services.tournament_create(
        user=staff, name="Open Cup", starts_at=timezone.now() + timedelta(minutes=30))
    # Established players, so that they are on the leaderboards the scan reads.
    Rating.objects.filter(user__in=[a, b]).update(provisional=False)
    with django_capture_on_commit_callbacks(execute=True):
        leaderboards_tasks.compute()
    assert LeaderboardEntry.objects.filter(user__in=[a, b]).exists()
    before = _public_pages([a, b])

    # A private game is casual: asked rated, it is refused with the reason.
    with pytest.raises(InvalidSettings, match="A private game is casual"):
        games_services.table_create(user=a, room=room, rated=True, private=True)
    watcher_heard = len(notified.get(watcher.pk, []))  # (their public games said "playing")
    with django_capture_on_commit_callbacks(execute=True):
        table = games_services.table_create(user=a, room=room, private=True)
        games_services.table_sit(table_id=table.pk, user=b, invite=table.invite_token)
        for _ in range(2):
            play_one(table.pk, {0: a, 1: b})
    # While it is played (both connected at the table), the contacts are not told they play,
    # nor the table, and the room lists neither player as online.
    Seat.objects.filter(table=table).update(connected=True, last_seen=timezone.now())
    scenario = {"a": a, "b": b, "players": [a, b], "people": [a, b, watcher],
                "table": table, "invite": table.invite_token, "tournament": tournament,
                "playing": True}
    for presence in presence_of([a.pk, b.pk]).values():
        # not even "playing": two contacts playing at once, then online together, would
        # say whom they play (they show as anywhere else on the site)
        assert presence.state != "playing", presence
        assert presence.as_frame()["table"] is None, presence
    watching = Client()
    watching.force_login(watcher)
    problems = _scan(Client(), scenario, "anonymous, while played")
    problems += _scan(watching, scenario, "watcher, while played")
    assert not problems, "\n".join(problems)

    scenario["playing"] = False
    # The game ends three days ago (a date nothing else on the pages carries), then the
    # receivers and their tasks run.
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        games_services.table_resign(table_id=table.pk, user=b)
    game = Game.objects.get(table=table)
    when = (timezone.now() - timedelta(days=3)).replace(hour=4, minute=37)
    Game.objects.filter(pk=game.pk).update(finished_at=when)
    GamePlayer.objects.filter(game=game).update(finished_at=when, private=True)
    # Zelda led by 30 when the other resigned (a win at 0-0 is nobody's best game)
    GamePlayer.objects.filter(game=game, user=a).update(score=30)
    game.refresh_from_db()
    with django_capture_on_commit_callbacks(execute=True):
        for callback in callbacks:
            callback()
    assert not game.rated and not RatingChange.objects.filter(game=game).exists()
    # counted in the players' own figures, apart
    assert PlayerStats.objects.filter(user=a, best_game=game, opponents="private").exists()
    with django_capture_on_commit_callbacks(execute=True):
        leaderboards_tasks.compute()
    after = _public_pages([a, b])
    assert after == before, _first_difference(before, after)
    scenario["game"] = game
    assert Table.objects.get(pk=table.pk).private

    # The players themselves still see it on their own profile.
    own = Client()
    own.force_login(a)
    mine = own.get(f"/u/{a.username}/").content.decode()
    assert f"/games/{game.pk}/" in mine and f"{when.day} {when:%b %Y}" in mine
    # told it is private (here, in the archive and on the game's page), as nobody else is
    tag = 'title="Seen by its players alone">private</span>'
    assert tag in mine and tag in own.get("/games/").content.decode()
    assert tag in own.get(f"/games/{game.pk}/").content.decode()
    # and no shared cache may keep what they are shown (it went out with only Vary: Cookie)
    for url in (f"/games/{game.pk}/", f"/games/{game.pk}/record.json",
                f"/games/{game.pk}/record.txt", f"/games/{game.pk}/analysis.json",
                f"/tables/{table.pk}/"):
        assert "private" in own.get(url)["Cache-Control"], url

    # A player asks for its analysis (the task runs: eager): it is stored, and its frames
    # went to that player's notification sockets only.
    def record_sends(messages):
        for group, message in messages:
            if group.startswith("user.") and message.get("type") == "notify.frame":
                notified.setdefault(int(group.split(".")[1]), []).append(message["frame"])
        return True

    monkeypatch.setattr(core_channels, "send_now", record_sends)
    monkeypatch.setattr(games_analysis, "send_now", record_sends)
    with django_capture_on_commit_callbacks(execute=True):
        games_services.analysis_request(game_id=game.pk, user=a)
    assert Analysis.objects.filter(game=game).count() == 1
    assert any(f.get("type") == "analysis" and f.get("status") == "done"
               for f in notified.get(a.pk, []))
    assert not any(f.get("type") == "analysis" for f in notified.get(b.pk, []))
    answer = own.get(f"/games/{game.pk}/analysis.json").json()
    assert answer["status"] == "done" and answer["analysis"]["decisions"]
    assert "analysis-data" in own.get(f"/games/{game.pk}/").content.decode()
    # The watcher may not ask for it either (answered like a missing game), nor read it.
    with django_capture_on_commit_callbacks(execute=True):
        with pytest.raises(AnalysisNotFound):
            games_services.analysis_request(game_id=game.pk, user=watcher)

    # Zelda imports the game's record file and has it analysed: kept and seen by her alone.
    record = games_records.engine_record(game)
    imported, _ = games_services.import_keep(owner=a, record=record, names=record.players,
                                             filename=IMPORTED_FILE)
    with django_capture_on_commit_callbacks(execute=True):
        games_services.analysis_request_import(record_id=imported.pk, user=a)
    assert Analysis.objects.filter(imported=imported).count() == 1
    assert IMPORTED_FILE in own.get("/games/import/").content.decode()
    assert own.get(f"/games/import/{imported.pk}/analysis.json").json()["status"] == "done"
    for url in (f"/games/import/{imported.pk}/", f"/games/import/{imported.pk}/record.json",
                f"/games/import/{imported.pk}/analysis.json"):
        assert "private" in own.get(url)["Cache-Control"], url
    assert not any(f.get("type") == "analysis" and f.get("record")
                   for uid, fs in notified.items() if uid != a.pk for f in fs)
    scenario["imported"] = imported

    # What the watcher's notification socket was sent, all along: no table, and since the
    # private game began, never "playing".
    frames = notified.get(watcher.pk, [])
    assert not any(f.get("type") == "presence" and f.get("state") == "playing"
                   for f in frames[watcher_heard:])
    for frame in frames:
        assert not _leaks(json.dumps(frame), scenario, "/ws/notify/"), frame

    problems = _scan(Client(), scenario, "anonymous")
    third = Client()
    third.force_login(watcher)
    problems += _scan(third, scenario, "watcher")
    assert not problems, "\n".join(problems)
    # (their POSTs to its delete and analysis changed nothing)
    assert ImportedRecord.objects.filter(pk=imported.pk, owner=a).exists()
    assert Analysis.objects.filter(imported=imported).count() == 1

    # The privacy is the game's own (copied on its seats), not only its table's: with the
    # table row gone (deleted in the admin), the game stays private.
    Table.objects.filter(pk=table.pk).delete()
    problems = _scan(Client(), scenario, "anonymous, table deleted")
    assert not problems, "\n".join(problems)
