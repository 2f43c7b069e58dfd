"""Bad input never gets a 500: every URL pattern of the site is requested, as a visitor and as
a player with games, messages, contacts, records, a tournament and an API token, as a bot
with its token (the bot API) and as staff (the tournament forms), with

- its parameters filled with real ids and with values that cannot be (ids past any database
  integer, names too long or with control characters), and
- junk in every query parameter and form field the views read (empty, negative, huge,
  not-a-number, NUL, a long string, repeated keys, days and times at the ends of what a
  datetime holds) and bodies that are not the JSON a view expects.

Each answer must be under 500 (a refusal, a redirect, a page). The scan runs on SQLite and, in
CI's second pass, on PostgreSQL, whose integer range and NUL byte refusals differ."""
from __future__ import annotations

import json
import re
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from accounts.models import ApiToken
from games import records as games_records
from games import services as games_services
from games.models import Game, Room
from games.rooms import ensure_default_rooms
from leaderboards.tournaments import services as tournaments_services
from social import services as social_services
from social.models import Conversation
from tests.support.accounts import api_token, bearer, clear_cache, make_bot
from tests.support.forms import post_forms
from tests.support.tables import play_one
from tests.support.urls import url_routes

SKIPPED_PREFIXES = ("admin/", "media/")
# Asked of the player last (it ends the session the rest of the scan uses).
LAST = ("accounts/logout/",)

# The names the views and forms read from a query string or a form (and a few they do not).
FIELDS = [
    "page", "mode", "q", "term", "since", "until", "max", "to", "next", "before", "after",
    "up_to", "period", "kind", "opponent", "result", "rated", "v", "table", "table_id",
    "index", "state", "year", "month", "week", "day", "level", "seats", "seat_count",
    "target", "seconds_per_turn", "format", "order", "sort", "invite", "action", "body",
    "reason", "name", "username", "email", "password", "login", "policy", "message_policy",
    "capacity", "rounds", "starts_at", "rating_min", "rating_max", "private", "scopes",
    "display_name", "country", "bio", "theme", "alerts", "seed", "record", "text", "id",
    "date_from", "date_to", "entry_opens_at", "time_zone",
]
# What the views read from a query string (one at a time on every page that answers a GET:
# a filter is only applied when the rest of the form is valid).
READ = ["page", "mode", "q", "term", "since", "until", "max", "to", "next", "before",
        "up_to", "period", "kind", "opponent", "result", "rated", "v", "table", "index",
        "state", "date_from", "date_to", "invite", "action"]
ONE_AT_A_TIME = ["9" * 25, "9999-12-31", "-1", "0001-01-01", "x" * 3000]
# Days and times at the ends of what a datetime holds: a bound there, moved by a day or a
# time zone, leaves the range (the archive's "to" day and the export's "until" did).
FAR_DATES = [
    {name: day for name in FIELDS}
    for day in ("9999-12-31", "0001-01-01", "9999-12-31T23:59:59-05:00",
                "0001-01-01T00:00:00+05:00")
]
JUNK = ["", "-1", "0", "abc", "9" * 25, "1e400", "\x00", "x" * 3000, "NaN", "2026-13-45"]

# Values for a parameter that no row can have.
IMPOSSIBLE = {"int": ["0", "9" * 25], "id": ["0", "9" * 25],
              "str": ["n" * 300, "no%00body", "no\u202ebody"], "slug": ["s" * 300],
              "regex": ["zz", "z%00z"]}
PARAM = re.compile(r"<(?:(\w+):)?(\w+)>|\(\?P<(\w+)>[^)]*\)")


def _fill(route: str, values: dict[str, str]) -> str:
    def one(m: re.Match) -> str:
        name = m.group(2) or m.group(3)
        return values.get(name, "1")
    return "/" + PARAM.sub(one, route)


def _impossible(route: str, which: int) -> str:
    def one(m: re.Match) -> str:
        kind = m.group(1) or ("regex" if m.group(3) else "str")
        choices = IMPOSSIBLE.get(kind, IMPOSSIBLE["str"])
        return choices[which % len(choices)]
    return "/" + PARAM.sub(one, route)


def _scenario(make_user, capture) -> dict:
    ensure_default_rooms(Room)
    a = make_user("badinput", display_name="Bad Input")
    b = make_user("otherone")
    c = make_user("thirdone")
    staff = make_user("organiser", is_staff=True)
    social_services.contact_request_send(sender=a, recipient=b)
    social_services.contact_request_accept(user=b, request_id=b.contact_requests_received.get().pk)
    pending = social_services.contact_request_send(sender=c, recipient=a)
    social_services.message_send(sender=a, recipient=b, body="hello")
    room = Room.objects.get(slug="classic")
    with capture(execute=True):
        table = games_services.table_create(user=a, room=room, rated=True)
        games_services.table_sit(table_id=table.pk, user=b)
        for _ in range(2):
            play_one(table.pk, {0: a, 1: b})
        games_services.table_resign(table_id=table.pk, user=b)
    game = Game.objects.get(table=table)
    record = games_records.engine_record(game)
    imported, _ = games_services.import_keep(owner=a, record=record, names=record.players,
                                             filename="mine.txt")
    tournament = tournaments_services.tournament_create(
        user=staff, name="Open Cup", starts_at=timezone.now() + timedelta(minutes=30))
    with capture(execute=True):
        open_table = games_services.table_create(user=a, room=room)
        invitation = social_services.invitation_send(sender=a, recipient=b,
                                                     table_id=open_table.pk)
    robot = make_bot(make_user("scanbot"))
    challenge = social_services.challenge_send(sender=robot, recipient=a, mode="classic")
    token = api_token(a, "games:read", name="scan")
    robot_token = api_token(robot, "bot:play", name="scan")
    ids = {
        "username": a.username, "slug": "classic", "table_id": str(open_table.pk),
        "game_id": str(game.pk), "record_id": str(imported.pk),
        "conversation_id": str(Conversation.objects.get().pk),
        "request_id": str(pending.pk), "invitation_id": str(invitation.pk),
        "challenge_id": str(challenge.pk), "tournament_id": str(tournament.pk),
        "token_id": str(ApiToken.objects.get(user=a).pk), "key": "nokey", "uidb36": "1",
    }
    return {"a": a, "staff": staff, "ids": ids, "token": token, "robot_token": robot_token}


def _requests(client: Client, path: str, headers: dict, n: int,
              one_at_a_time: bool) -> list[tuple[str, int]]:
    """The answers to ``path`` asked plainly, with junk fields (with ``one_at_a_time``, on a
    page, also each field the views read alone) and with junk bodies."""
    answers = []
    junk = JUNK[n % len(JUNK)]
    query = {name: junk for name in FIELDS}
    plain = client.get(path, **headers).status_code
    answers.append(("GET", plain))
    if plain == 200 and one_at_a_time:
        for k, name in enumerate(READ):
            value = ONE_AT_A_TIME[(n + k) % len(ONE_AT_A_TIME)]
            answers.append((f"GET {name}={value[:12]}",
                            client.get(path, {name: value}, **headers).status_code))
    answers.append(("GET junk", client.get(path, query, **headers).status_code))
    doubled = "&".join(f"{name}=1&{name}=x" for name in FIELDS[:12])
    answers.append(("GET twice", client.get(f"{path}?{doubled}", **headers).status_code))
    far = FAR_DATES[1 + n % (len(FAR_DATES) - 1)]
    for dates in (FAR_DATES[0], far):
        answers.append(("GET far dates", client.get(path, dates, **headers).status_code))
    answers.append(("POST junk", client.post(path, query, **headers).status_code))
    answers.append(("POST junk for JSON", client.post(path, query, HTTP_ACCEPT="application/json",
                                                      **headers).status_code))
    answers.append(("POST far dates", client.post(path, far, **headers).status_code))
    # a NUL, and half of a surrogate pair (json.dumps writes it as the escape "\ud800")
    bad = [json.dumps({name: f"a{char}b" for name in FIELDS}) for char in ("\x00", "\ud800")]
    for body in ('{"action": ', '{"body": {"x": [null]}, "to": []}', *bad):
        answers.append(("POST body", client.post(path, body, content_type="application/json",
                                                 **headers).status_code))
    return answers


@pytest.mark.django_db
def test_no_input_gets_a_500(make_user, django_capture_on_commit_callbacks):
    clear_cache()
    scenario = _scenario(make_user, django_capture_on_commit_callbacks)
    routes = [r for r in dict.fromkeys(url_routes()) if not r.startswith(SKIPPED_PREFIXES)]
    routes.sort(key=lambda r: r in LAST)
    player = Client(raise_request_exception=False)
    player.force_login(scenario["a"])
    visitor = Client(raise_request_exception=False)
    staff = Client(raise_request_exception=False)
    staff.force_login(scenario["staff"])
    failures, asked = [], 0
    for n, route in enumerate(routes):
        paths = [_fill(route, scenario["ids"])] + [_impossible(route, n + k) for k in range(3)]
        for path in dict.fromkeys(paths):
            api = path.startswith("/api/")
            for who, client, headers in (
                ("visitor", visitor, bearer("not-a-token")),
                ("player", player, bearer(scenario["token"]) if api else {}),
                ("bot", visitor, bearer(scenario["robot_token"]) if api else None),
                # the organisers' forms (a tournament's creation and cancelling)
                ("staff", staff, {} if route.startswith("tournaments/") else None),
            ):
                if headers is None:
                    continue
                for what, status in _requests(client, path, headers, n, who == "player"):
                    asked += 1
                    if status >= 500:
                        failures.append(f"{who} {what} {path[:80]} -> {status}")
    assert asked > 3000
    assert not failures, "\n".join(failures)


@pytest.mark.django_db
def test_a_nul_character_is_refused_before_any_view(make_user):
    """No field of the site takes a NUL, and PostgreSQL refuses one in every text column: a
    request with one in its path, query or form is answered 400 with the reason, whatever
    the database (JSON bodies and socket frames: core/jsonlimits.py)."""
    user = make_user("nulsender")
    client = Client()
    client.force_login(user)
    for response in (
        client.get("/u/nul%00sender/"),
        client.get("/games/", {"opponent": "a\x00"}),
        client.post("/invitations/send/", {"to": "a\x00b", "table": "1"}),
        client.post("/messages/with/nulsender/", {"body": "hi\x00"}),
    ):
        assert response.status_code == 400
        assert "NUL character" in response.content.decode()
        # the site's own page, in its layout (it was bare text), signed in as they are, as
        # any page: its security headers, and a CSRF cookie its Log out form's token matches
        # (built before the CSRF middleware, the page's Log out answered 403)
        assert response["Content-Type"].startswith("text/html")
        assert 'class="error-page"' in response.content.decode()
        assert "nulsender" in response.content.decode()
        assert response["X-Frame-Options"] and response["Content-Security-Policy"]
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(user)
    page = strict.get("/games/", {"opponent": "a\x00"})
    assert page.status_code == 400
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"',
                      page.content.decode()).group(1)
    assert strict.post("/accounts/logout/", {"csrfmiddlewaretoken": token}).status_code == 302
    big = client.post("/contacts/add/x/", {f"f{i}": "1" for i in range(1200)})
    assert big.status_code == 400 and "too many fields" in big.content.decode()
    api = client.get("/api/bot/games/", {"x\x00": "1"})
    assert api.status_code == 400 and "NUL character" in api.json()["detail"]
    page = client.post("/contacts/add/x/", {"a": "\x00"}, HTTP_ACCEPT="application/json")
    assert page.status_code == 400 and page.json()["error"]["code"] == "bad_request"


@pytest.mark.django_db
def test_a_form_django_will_not_read_is_refused_in_the_askers_shape(make_user, settings,
                                                                      caplog):
    """Over DATA_UPLOAD_MAX_MEMORY_SIZE, too many fields, a broken multipart upload: Django's
    own answer was a bare "Bad Request (400)" (the bot API promises 413 too_large), with a
    traceback in the log each time."""
    import logging

    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10_000
    settings.DATA_UPLOAD_MAX_NUMBER_FIELDS = 50
    user = make_user("bigform")
    token = api_token(make_bot(make_user("bigbot")), ApiToken.SCOPE_BOT_PLAY)
    client = Client()
    client.force_login(user)
    big = "a=" + "x" * 20_000
    form = "application/x-www-form-urlencoded"
    caplog.set_level(logging.WARNING)
    api = client.post("/api/bot/challenges/", big, content_type=form, **bearer(token))
    assert api.status_code == 413 and api.json()["error"] == "too_large"
    page = client.post("/messages/with/bigform/", big, content_type=form,
                       HTTP_ACCEPT="application/json")
    assert page.status_code == 413 and page.json()["error"]["code"] == "too_large"
    text = client.post("/messages/with/bigform/", big, content_type=form)
    assert text.status_code == 413 and "too large" in text.content.decode()
    many = "&".join(f"f{i}=1" for i in range(60))
    fields = client.post("/contacts/add/x/", many, content_type=form,
                         HTTP_ACCEPT="application/json")
    assert fields.status_code == 400 and "too many fields" in fields.json()["error"]["message"]
    broken = client.post("/games/import/", b"--zz\r\nContent-Disposition: form-data",
                         content_type="multipart/form-data; boundary=")
    assert broken.status_code == 400 and "could not be read" in broken.content.decode()
    # a form in another charset than UTF-8 (Django refuses to read one): a 500 on every POST,
    # anonymous visitors' included, once the CSRF cookie was set
    for charset in ("iso-8859-1", "utf-16", "UTF8"):
        latin = Client(enforce_csrf_checks=True)
        latin.get("/accounts/login/")
        answer = latin.post("/accounts/login/", "a=b", content_type=f"{form}; charset={charset}",
                            HTTP_X_CSRFTOKEN=latin.cookies["csrftoken"].value)
        assert answer.status_code == 400 and "could not be read" in answer.content.decode()
        mine = client.post("/messages/with/bigform/", "a=b", HTTP_ACCEPT="application/json",
                           content_type=f"{form}; charset={charset}")
        assert mine.status_code == 400 and mine.json()["error"]["code"] == "bad_request"
    assert not any(r.exc_info for r in caplog.records), [r.getMessage() for r in caplog.records]


def test_security_notes_are_logged_on_one_line():
    """A path outside the media folder is a one-line note, not a traceback."""
    import logging

    from ginsite.logfilters import OneLineSecurityNotes

    try:
        raise ValueError("x")
    except ValueError:
        import sys
        info = sys.exc_info()
    note = logging.LogRecord("django.security.SuspiciousFileOperation", logging.ERROR, "f", 1,
                             "Detected path traversal attempt", (), info)
    other = logging.LogRecord("django.request", logging.ERROR, "f", 1, "boom", (), info)
    keep = OneLineSecurityNotes()
    assert keep.filter(note) and note.exc_info is None
    assert keep.filter(other) and other.exc_info is info  # a real fault keeps its traceback
    handler = logging.getLogger().handlers[0]
    assert any(isinstance(f, OneLineSecurityNotes) for f in handler.filters)


@pytest.mark.django_db
def test_a_date_at_the_end_of_the_calendar_is_no_bound(make_user):
    """The archive's "to" is a day inclusive (its next day's start is the bound) and the
    export's ``until`` the same: on 31 Dec 9999 that next day does not exist, and 1 Jan 1
    east of Greenwich is before the first moment a datetime holds in UTC. Such a bound leaves
    nothing out, so the pages answer as with no bound, never a 500."""
    user = make_user("farday")
    client = Client()
    client.force_login(user)
    token = api_token(user, "games:read")
    for query in ({"date_to": "9999-12-31"}, {"date_from": "0001-01-01", "date_to": "0001-01-01"},
                  {"date_from": "9999-12-31"}):
        for path in ("/games/", f"/u/{user.username}/games/"):
            assert client.get(path, query).status_code == 200, (path, query)
    for query in ({"until": "9999-12-31"}, {"since": "0001-01-01T00:00:00+05:00"},
                  {"until": "9999-12-31T23:59:59-05:00"}, {"since": "9999-12-31"}):
        response = client.get(f"/api/games/export/{user.username}/", query, **bearer(token))
        assert response.status_code == 200, (query, response.content[:200])


# One field of a form changed at a time (the rest as the page offers it, so the form is
# otherwise valid and reaches the code behind its checks).
FIELD_JUNK = ["", "-1", "9" * 25, "x" * 5000, "9999-12-31"]


@pytest.mark.django_db
def test_no_form_of_the_site_gets_a_500(make_user, django_capture_on_commit_callbacks):
    """Every POST form that a page of the site shows to a player or to staff is sent as the
    page offers it, then with each field in turn set to junk: none may answer 500. A new
    form is covered as soon as a page shows it."""
    clear_cache()
    scenario = _scenario(make_user, django_capture_on_commit_callbacks)
    routes = [r for r in dict.fromkeys(url_routes())
              if not r.startswith(SKIPPED_PREFIXES) and r not in LAST]
    failures, sent = [], set()
    for who in ("a", "staff"):
        client = Client(raise_request_exception=False)
        client.force_login(scenario[who])
        for route in routes:
            page = client.get(_fill(route, scenario["ids"]))
            if page.status_code != 200 or "html" not in page.get("Content-Type", ""):
                continue
            for action, fields in post_forms(page.content.decode()):
                action = action or page.request["PATH_INFO"]
                key = (action, tuple(sorted(fields)))
                # (leaving the session, or making the player a bot, would end the scan)
                if key in sent or action.startswith(("/accounts/logout/", "/settings/api/bot/")):
                    continue
                sent.add(key)
                tries = [("as offered", fields)] + [
                    (f"{name}={value[:12]!r}", {**fields, name: value})
                    for name in fields if name != "csrfmiddlewaretoken" for value in FIELD_JUNK]
                for what, data in tries:
                    status = client.post(action, data).status_code
                    if status >= 500:
                        failures.append(f"{who} {action} {what} -> {status}")
    assert len(sent) > 30  # the forms of contacts, tables, settings, tournaments...
    assert not failures, "\n".join(failures)


@pytest.mark.django_db(transaction=True)
async def test_a_nul_character_under_asgi_gets_the_page_too(make_user):
    """Under Daphne the refusal runs in the async chain: its page reads the session and the
    user, sync code (it was a SynchronousOnlyOperation, a 500)."""
    from asgiref.sync import sync_to_async
    from django.test import AsyncClient

    user = await sync_to_async(make_user)("nulsender")
    client = AsyncClient()
    await sync_to_async(client.force_login)(user)
    answer = await client.get("/games/", {"opponent": "a\x00"})
    assert answer.status_code == 400
    assert 'class="error-page"' in answer.content.decode()
    assert "nulsender" in answer.content.decode()
