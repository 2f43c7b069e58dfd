"""Issue 19, item 16: the alert settings (your turn, a match ready, a new message) per
player, and the page carrying them to static/js/attention.js."""
from __future__ import annotations

import json
import re

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db

PREFS = re.compile(r'<script id="alert-preferences" type="application/json">(.*?)</script>')


def _prefs(page: str) -> dict:
    match = PREFS.search(page)
    assert match, "no #alert-preferences on the page"
    return json.loads(match.group(1))


def test_alerts_are_on_by_default_and_each_can_be_turned_off(client, make_user):
    user = make_user("alice")
    client.force_login(user)
    page = client.get(reverse("games:lobby")).content.decode()
    assert _prefs(page) == {"sound": True, "vibrate": True, "notifications": True, "title": True}
    response = client.get(reverse("accounts:alerts"))
    assert response.status_code == 200
    body = response.content.decode()
    assert 'src="/static/js/alerts.js"' in body or "js/alerts" in body
    assert "data-alerts-allow" in body  # permission is asked by a button, never on load
    # a checkbox left out is off
    response = client.post(reverse("accounts:alerts"), {"alert_title": "on", "alert_vibrate": "on"})
    assert response.status_code == 302
    user.refresh_from_db()
    assert (user.alert_sound, user.alert_vibrate, user.alert_notifications, user.alert_title) == (
        False, True, False, True)
    page = client.get(reverse("games:lobby")).content.decode()
    assert _prefs(page) == {"sound": False, "vibrate": True, "notifications": False, "title": True}


def test_visitors_get_no_preferences_and_the_page_needs_a_login(client, make_user):
    assert "alert-preferences" not in client.get(reverse("games:lobby")).content.decode()
    response = client.post(reverse("accounts:alerts"), {"alert_sound": "on"})
    assert response.status_code == 302 and "/accounts/login/" in response.url


def test_other_players_preferences_stay_theirs(client, make_user):
    alice, bob = make_user("alice"), make_user("bob")
    client.force_login(bob)
    client.post(reverse("accounts:alerts"), {})
    alice.refresh_from_db()
    bob.refresh_from_db()
    assert alice.alert_sound and not bob.alert_sound
