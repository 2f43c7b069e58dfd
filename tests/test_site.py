import time

import pytest
from django.urls import reverse


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["home", "games:lobby", "leaderboards:index"])
def test_public_pages_render(client, name):
    response = client.get(reverse(name))
    assert response.status_code == 200
    assert b"Skip to content" in response.content


@pytest.mark.django_db
def test_unknown_page_uses_site_404(client):
    response = client.get("/no-such-page/")
    assert response.status_code == 404
    assert b"Page not found" in response.content


@pytest.mark.django_db
def test_manifest_lists_installable_icons(client):
    data = client.get(reverse("manifest")).json()
    assert data["display"] == "standalone"
    sizes = {icon["sizes"] for icon in data["icons"]}
    assert {"192x192", "512x512"} <= sizes


def _says_silent_since(text: str, seconds: float, since: float) -> bool:
    """``text`` names a silence of ``seconds``, plus no more than the time since ``since``
    (``time.monotonic()`` before the heartbeat was written): a loaded machine may take a
    second or more to answer, and the page counts it."""
    import re
    import time

    waited = time.monotonic() - since
    return any(seconds <= int(n) <= seconds + waited + 1
               for n in re.findall(r"(\d+) s\b", text))


def _worker_heard(seconds_ago: float = 0) -> None:
    from datetime import timedelta

    from django.utils import timezone

    from games.models import Heartbeat

    Heartbeat.objects.update_or_create(
        name="sweep", defaults={"at": timezone.now() - timedelta(seconds=seconds_ago)}
    )


# Transactional: the probes run in threads of their own, which must see the heartbeat row.
@pytest.mark.django_db(transaction=True)
def test_healthz_all_up(client):
    _worker_heard()
    response = client.get(reverse("healthz"))
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["status"] == "ok"
    assert set(body["checks"]) == {"database", "cache", "channel_layer", "broker", "worker"}


@pytest.mark.django_db(transaction=True)
def test_the_footers_service_status_is_a_page_for_people(client):
    """The footer's "Service status" opened the monitors' JSON: it is a page in words now."""
    since = time.monotonic()
    _worker_heard(seconds_ago=120)
    home = client.get("/").content.decode()
    assert 'href="/status/">Service status</a>' in home
    response = client.get("/status/")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/html")
    page = response.content.decode()
    assert "background work may be late" in page
    assert "Live play (moves, chat and notices as they happen)" in page
    assert _says_silent_since(page, 120, since) and page.count("working") >= 4
    assert client.post("/status/").status_code == 405


@pytest.mark.django_db(transaction=True)
def test_healthz_reports_a_silent_worker_but_still_serves(client):
    since = time.monotonic()
    _worker_heard(seconds_ago=120)
    response = client.get(reverse("healthz"))
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "degraded"
    assert body["failed"] == ["worker"]
    assert body["checks"]["worker"]["error"].startswith("no worker heard from for ")
    assert _says_silent_since(body["checks"]["worker"]["error"], 120, since)


@pytest.mark.django_db(transaction=True)
def test_healthz_names_an_unreachable_broker(client, settings):
    _worker_heard()
    # Port 1 on loopback is closed: a real connection attempt that fails, no mocks.
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"
    settings.CELERY_BROKER_TRANSPORT_OPTIONS = {}
    response = client.get(reverse("healthz"))
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unavailable"
    assert body["failed"] == ["broker"]
    assert body["checks"]["broker"]["ok"] is False
    assert body["checks"]["database"]["ok"] is True


@pytest.mark.django_db(transaction=True)
def test_healthz_a_hung_service_delays_no_poll_and_fails_no_other_check(client, monkeypatch):
    """A service that hangs (the cache here) reports ``timeout`` on every poll, each poll
    still answers in its budget, not after the hang, and no other check reports a failure:
    the hung probe's runs are shared by the polls that come meanwhile instead of filling a
    thread pool that the others wait behind (which made the drill's polls report the broker
    and the cache down while a PostgreSQL outage held the database probes)."""
    import threading
    import time

    from ginsite import health

    _worker_heard()
    release = threading.Event()

    def hung():
        release.wait(20)
        return None

    monkeypatch.setattr(health._cache_probe, "probe", hung)
    try:
        for _ in range(8):
            started = time.monotonic()
            response = client.get(reverse("healthz"))
            took = time.monotonic() - started
            body = response.json()
            assert response.status_code == 503 and body["failed"] == ["cache"], body
            assert body["checks"]["cache"]["error"].startswith("timeout")
            # the probes' budget is 0.8 s: well below the 20 s the cache hangs for, even on
            # a loaded machine (a poll that waited for the hung probe would take 20 s)
            assert took < 5, took
    finally:
        release.set()


def test_healthz_is_answered_before_django(monkeypatch):
    """Under Daphne, ``/healthz`` never goes through Django's middleware, request signals
    or sync thread (all of which an outage under play traffic fills); other paths do."""
    import asyncio

    from ginsite.health import HealthEndpoint

    seen = []

    async def django_app(scope, receive, send):
        seen.append(scope["path"])
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    async def call(path, method="GET"):
        sent = []

        async def receive():
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message):
            sent.append(message)

        await HealthEndpoint(django_app)(
            {"type": "http", "path": path, "method": method, "headers": []}, receive, send)
        return sent

    async def probe_report():
        return 200, {"status": "ok"}

    import ginsite.health as health

    monkeypatch.setattr(health, "report", probe_report)
    answer = asyncio.run(call("/healthz"))
    assert answer[0]["status"] == 200 and b'"ok"' in answer[1]["body"]
    assert asyncio.run(call("/healthz", "HEAD"))[1]["body"] == b""
    assert asyncio.run(call("/healthz", "POST"))[0]["status"] == 204  # Django's 405
    assert asyncio.run(call("/play/"))[0]["status"] == 204
    assert seen == ["/healthz", "/play/"]


@pytest.mark.django_db
def test_favicon_ico_points_at_the_svg_icon(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 301
    assert response["Location"].endswith("icons/favicon.svg")


def test_no_template_comment_spans_lines():
    """Django's ``{# #}`` ends on its own line: one written over two lines is page text (an
    analysed game's page showed "{# the judgement of the move shown…" under its controls).
    Longer notes use ``{% comment %}``."""
    import pathlib
    import re

    root = pathlib.Path(__file__).resolve().parents[1] / "templates"
    opened = [f"{path.relative_to(root)}:{n}"
              for path in root.rglob("*.html")
              for n, line in enumerate(path.read_text().splitlines(), 1)
              if re.search(r"\{#(?!.*#\})", line)]
    assert opened == []


@pytest.mark.django_db
def test_the_navigation_marks_the_section_the_page_belongs_to(client, make_user):
    """One entry of the main navigation is current, and only where the page belongs to it:
    a player's own archive of games is under Profile (it lit Play, since it lives in the
    games app), another player's archive and a replay under none."""
    import re

    from tests.support.records import make_game

    me, other = make_user("navme"), make_user("navother")
    game = make_game([me, other])
    client.force_login(me)

    def current(url):
        body = client.get(url).content.decode()
        nav = body[body.index('aria-label="Main"'):body.index("</nav>")]
        return re.findall(r'aria-current="page"[^>]*>(?:<[^>]+>)*\s*([A-Za-z]+)', nav)

    assert current("/play/") == ["Play"]
    assert current("/games/") == ["Profile"]
    assert current("/u/navme/games/") == ["Profile"]
    assert current("/u/navother/games/") == []
    assert current(f"/games/{game.pk}/") == []
    assert current("/u/navme/") == ["Profile"]
    assert current("/u/navother/") == []
    assert current("/settings/api/") == ["Profile"]
    assert current("/stats/") == ["Profile"]
    assert current("/tournaments/") == ["Tournaments"]
    assert current("/leaderboards/") == ["Leaderboards"]
    assert current("/contacts/") == ["Messages"]
    assert current("/rules/") == []


@pytest.mark.django_db
def test_media_answers_404_for_a_path_too_long_for_the_file_system(client, settings, tmp_path):
    """/media/ with a path of 4,000 characters reached the file system: "File name too long",
    a 500. An avatar is still served."""
    settings.MEDIA_ROOT = tmp_path
    (tmp_path / "avatars").mkdir()
    (tmp_path / "avatars" / "a.png").write_bytes(b"\x89PNG")
    assert client.get("/media/avatars/a.png").status_code == 200
    assert client.get("/media/" + "a" * 4100).status_code == 404
    assert client.get("/media/" + "/".join(["b" * 250] * 2)).status_code == 404
    assert client.get("/media/avatars/missing.png").status_code == 404


@pytest.mark.django_db
def test_a_form_address_opened_in_the_browser_is_a_page_that_says_so(client, make_user):
    """GET /tables/1/close/ (a form's address) answered an empty 405 (an outside audit): the
    site's page now says what the address is for, and keeps the Allow header. A script that
    asks for JSON, and the API, still get their JSON; the API docs' 404 is the site's page."""
    client.force_login(make_user("visitor"))
    response = client.get("/tables/1/close/")
    assert response.status_code == 405 and response["Allow"] == "POST"
    assert "This address is not a page" in response.content.decode()
    as_json = client.get("/tables/1/close/", HTTP_ACCEPT="application/json")
    assert as_json.status_code == 405 and as_json.json()["error"]["code"] == "method_not_allowed"
    missing = client.get("/api/docs/nope/")
    assert missing.status_code == 404 and missing["Content-Type"].startswith("text/html")
    assert "Page not found" in missing.content.decode()
    assert client.get("/api/nowhere/").json()["error"] == "not_found"
