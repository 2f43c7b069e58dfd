"""A create form sent twice makes one thing (core/formonce.py): the tournament form and a
room's new table form (the invitations' new table form: tests/social/test_invitations.py)."""
from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.utils import timezone

from core import formonce
from games.models import Room, Table
from games.rooms import ensure_default_rooms
from leaderboards.tournaments.models import Tournament
from tests.support.records import make_game

pytestmark = pytest.mark.django_db
ONCE = re.compile(r'<input type="hidden" name="once" value="([A-Za-z0-9_-]{16,43})"')


@pytest.fixture(autouse=True)
def rooms(db):
    ensure_default_rooms(Room)


@pytest.fixture
def maker(client, make_user):
    user = make_user("maker")
    for _ in range(3):  # the rated games a player needs to create a tournament
        make_game([user, make_user()])
    client.force_login(user)
    return user


def _once(client, url):
    keys = ONCE.findall(client.get(url).content.decode())
    assert len(keys) == 1, "the form has one hidden once key"
    return keys[0]


def _tournament_form(client):
    start = (timezone.now() + timedelta(hours=2)).strftime("%Y-%m-%dT%H:%M")
    return {"name": "My Cup", "mode": "classic", "format": "single", "capacity": "8",
            "seconds_per_turn": "30", "starts_at": start,
            "once": _once(client, "/tournaments/new/")}


def test_the_tournament_form_sent_twice_makes_one_tournament(client, maker):
    form = _tournament_form(client)
    first = client.post("/tournaments/new/", form)
    t = Tournament.objects.get()
    assert first.status_code == 302 and first["Location"] == t.get_absolute_url()
    again = client.post("/tournaments/new/", form, follow=True)
    assert Tournament.objects.count() == 1
    assert again.redirect_chain == [(t.get_absolute_url(), 302)]
    assert "This form was sent twice: here is the tournament its first sending made." in (
        again.content.decode())
    # a new rendering of the form is a new form: it makes a second tournament
    assert client.post("/tournaments/new/", _tournament_form(client)).status_code == 302
    assert Tournament.objects.count() == 2


def test_a_refused_tournament_form_can_be_sent_again_once_put_right(client, maker):
    form = _tournament_form(client)
    refused = client.post("/tournaments/new/", {**form, "capacity": "300"})
    assert refused.status_code == 400 and not Tournament.objects.exists()
    # the page sent back keeps the same key, and the corrected form is taken
    assert ONCE.findall(refused.content.decode()) == [form["once"]]
    assert client.post("/tournaments/new/", form).status_code == 302
    assert Tournament.objects.count() == 1


@pytest.mark.parametrize("key", ["<script>", "a" * 44, "é" * 16])
def test_a_once_key_the_site_did_not_write_is_refused(client, maker, key):
    form = {**_tournament_form(client), "once": key}
    response = client.post("/tournaments/new/", form)
    assert response.status_code == 400 and not Tournament.objects.exists()


def _table_form(client, **changes):
    form = {"seats": "2", "seconds_per_turn": "30", "once": _once(client, "/play/classic/")}
    return {**form, **changes}


def test_a_rooms_new_table_form_sent_twice_makes_one_table(client, maker):
    form = _table_form(client)
    first = client.post("/play/classic/new/", form)
    table = Table.objects.get()
    assert first.status_code == 302 and first["Location"] == f"/tables/{table.pk}/"
    again = client.post("/play/classic/new/", form)
    assert again.status_code == 302 and again["Location"] == first["Location"]
    assert Table.objects.count() == 1
    # the same page sent with other settings (back, change, send) is another form
    other = client.post("/play/classic/new/", {**form, "seconds_per_turn": "60"})
    assert other.status_code == 302 and Table.objects.count() == 2


def test_a_second_sending_waits_for_the_first_and_says_so_if_it_is_not_done(
        client, maker, monkeypatch):
    form = _table_form(client)
    monkeypatch.setattr(formonce, "WAIT", 0.2)
    real_add, real_get = cache.add, cache.get
    # the first sending has claimed the form and is still making its table
    monkeypatch.setattr(cache, "add", lambda key, *a, **kw: (
        False if key.startswith("form-once:") else real_add(key, *a, **kw)))
    monkeypatch.setattr(cache, "get", lambda key, *a, **kw: (
        "making" if key.startswith("form-once:") else real_get(key, *a, **kw)))
    response = client.post("/play/classic/new/", form)
    assert response.status_code == 409 and not Table.objects.exists()
    assert "the first sending is still being made" in response.content.decode()


def test_a_cache_that_fails_lets_the_form_work(client, maker, monkeypatch):
    def down(*args, **kwargs):
        raise ConnectionError("the cache is down")

    form = _table_form(client)
    monkeypatch.setattr(cache, "add", down)
    monkeypatch.setattr(cache, "set", down)
    response = client.post("/play/classic/new/", form)
    assert response.status_code == 302 and Table.objects.count() == 1


def test_a_sending_that_broke_leaves_the_form_free_to_be_sent_again(client, maker, monkeypatch):
    # not a refusal the form shows but a failure (a lost database): the form is not held as
    # "being made" for the next ten minutes, each sending waiting and then told so
    from games import services
    form = _table_form(client)
    real = services.table_create

    def broken(**kwargs):
        raise OSError("the database went away")

    monkeypatch.setattr(services, "table_create", broken)
    with pytest.raises(OSError):
        client.post("/play/classic/new/", form)
    monkeypatch.setattr(services, "table_create", real)
    monkeypatch.setattr(formonce, "WAIT", 0.2)
    response = client.post("/play/classic/new/", form)
    assert response.status_code == 302 and Table.objects.count() == 1


def test_play_the_computer_sent_twice_starts_one_game(client, maker):
    form = {"mode": "classic", "level": "1", "once": _once(client, "/play/")}
    first = client.post("/play/computer/", form)
    assert first.status_code == 302 and Table.objects.count() == 1
    again = client.post("/play/computer/", form, follow=True)
    assert again.redirect_chain == [(first["Location"], 302)]
    assert "here is the game its first sending made" in again.content.decode()
    assert Table.objects.count() == 1
    # another level on the same page is another game
    assert client.post("/play/computer/", {**form, "level": "2"}).status_code == 302
    assert Table.objects.count() == 2


@pytest.mark.parametrize("url", ["/play/", "/play/classic/", "/tournaments/new/",
                                 "/invitations/"])
def test_a_page_with_a_create_form_is_never_kept_by_the_browser(client, maker, url):
    """Back to it fetches a new form with a new key: a copy from the browser's cache sent the
    old key again, and went to what the first sending had made."""
    response = client.get(url)
    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"]
