"""Every link the site shows leads somewhere a GET can go.

A link to a POST-only address answers 405 to the player who follows it (the empty statistics
page once linked "play the computer" to the lobby form's action). This walks the site from the
home page as a visitor and as a new member, following every internal ``<a href>``, and asserts
no link answers 405 or a server error, nor 404 except where the link names a page that is
meant to be gone.
"""
from __future__ import annotations

import re
from html import unescape
from urllib.parse import urljoin, urlsplit

import pytest

HREF = re.compile(r"<a\b[^>]*?\bhref=\"([^\"]*)\"", re.I)
TEMPLATE = re.compile(r"<template\b.*?</template>", re.I | re.S)
# Addresses a walk must not follow: signing out ends the walk's session.
SKIP = ("/accounts/logout/",)
MAX_PAGES = 120


def _links(page: str, body: str) -> list[str]:
    out = []
    # a <template>'s links are not on the page: a script fills them in for a row it adds
    for href in HREF.findall(TEMPLATE.sub("", body)):
        href = unescape(href)
        if not href or href.startswith(("#", "mailto:", "javascript:", "tel:")):
            continue
        parts = urlsplit(urljoin(page, href))
        if parts.scheme and parts.netloc not in ("testserver", ""):
            continue
        out.append(parts.path + (f"?{parts.query}" if parts.query else ""))
    return out


@pytest.fixture(autouse=True)
def _fresh_cache():
    """Who was seen in a room lives in the cache: an earlier test's players would be listed."""
    from tests.support.accounts import clear_cache

    clear_cache()


def _walk(client) -> dict[str, int]:
    """Status of every internal page reachable from the home page (at most MAX_PAGES)."""
    seen: dict[str, int] = {}
    queue, linked_from = ["/"], {"/": "(start)"}
    while queue and len(seen) < MAX_PAGES:
        page = queue.pop(0)
        if page in seen:
            continue
        response = client.get(page)
        seen[page] = response.status_code
        if response.status_code != 200 or "text/html" not in response.get("Content-Type", ""):
            continue
        for link in _links(page, response.content.decode()):
            if link not in seen and link not in linked_from and not link.startswith(SKIP):
                linked_from[link] = page
                queue.append(link)
    return {f"{page} (linked from {linked_from[page]})": code for page, code in seen.items()}


def _broken(statuses: dict[str, int]) -> dict[str, int]:
    return {page: code for page, code in statuses.items() if code >= 400}


@pytest.mark.django_db
def test_every_link_a_visitor_sees_answers_a_get(client):
    statuses = _walk(client)
    assert len(statuses) > 20
    assert _broken(statuses) == {}


@pytest.mark.django_db
def test_every_link_a_new_member_sees_answers_a_get(client, make_user):
    client.force_login(make_user("newcomer"))
    statuses = _walk(client)
    assert len(statuses) > 20
    assert _broken(statuses) == {}


@pytest.mark.django_db
def test_every_link_a_settled_member_sees_answers_a_get(client, make_user):
    """A member with games (against a player and the computer), a contact, a conversation, a
    contact request waiting and a tournament entered: their archive, replays, profiles,
    messages and the tournament's page."""
    from leaderboards.tournaments import services as tournaments
    from social.services import contact_request_accept, contact_request_send, message_send
    from tests.support.records import finished_game
    from tests.support.tournaments import create_tournament

    ann, ben, cal = make_user("ann"), make_user("ben", is_staff=True), make_user("cal")
    game = finished_game([ann, ben], rated=True)
    finished_game([ann, None], mode="rummy", seed=2, bot_level=3)
    request = contact_request_send(sender=ben, recipient=ann)
    contact_request_accept(user=ann, request_id=request.pk)
    message_send(sender=ben, recipient=ann, body="Good game!")
    contact_request_send(sender=cal, recipient=ann)
    cup = create_tournament(ben)
    tournaments.tournament_enter(user=ann, tournament_id=cup.pk)
    client.force_login(ann)
    statuses = _walk(client)
    assert any(page.startswith(f"/games/{game.pk}/") for page in statuses)
    assert any(page.startswith(f"/tournaments/{cup.pk}/") for page in statuses)
    assert _broken(statuses) == {}
