"""Names carry the mode's rating where players are listed: room lists (page and JSON), the
room's online list, contacts, and nothing when no ratings app answers (games.hooks)."""
from __future__ import annotations

import pytest

from games import hooks
from games import services as games_services
from leaderboards.models import Rating
from leaderboards.ratings import selectors

pytestmark = pytest.mark.django_db


def _established(user, mode, rating):
    Rating.objects.create(user=user, mode=mode, mu=rating, sigma=90, rating=rating,
                          provisional=False, games=40)


def test_room_lists_show_each_players_rating_in_the_rooms_mode(rooms, make_user, client):
    alice, bob = make_user("alice"), make_user("bob")
    _established(alice, "classic", 1712)
    _established(alice, "straight", 1333)
    games_services.table_create(user=alice, room=rooms["classic"])
    games_services.table_create(user=bob, room=rooms["classic"], rated=True)
    data = client.get(f"/play/{rooms['classic'].slug}/tables.json").json()
    players = {p["name"]: p["rating"] for t in data["open"] for p in t["players"]}
    assert players == {"alice": "1712", "bob": "1500?"}
    assert all("user_id" not in p for t in data["open"] for p in t["players"])
    page = client.get(rooms["classic"].get_absolute_url()).content.decode()
    assert '<span class="rating-tag">1712</span>' in page
    assert '<span class="rating-tag">1500?</span>' in page


def test_contacts_show_the_classic_rating(make_user, client):
    from social.models import Contact

    alice, bob = make_user("alice"), make_user("bob")
    _established(bob, "classic", 1650)
    Contact.objects.create(user=alice, contact=bob)
    Contact.objects.create(user=bob, contact=alice)
    client.force_login(alice)
    page = client.get("/contacts/").content.decode()
    assert 'title="Classic Gin rating">1650</span>' in page
    data = client.get("/contacts/list.json").json()
    assert data["contacts"][0]["rating"] == "1650"


def test_without_an_answer_names_carry_no_rating(rooms, make_user, client):
    alice = make_user("alice")
    games_services.table_create(user=alice, room=rooms["classic"])
    hooks.unregister_ratings(selectors.rating_labels)
    try:
        assert hooks.rating_labels([alice.pk], "classic") == {}
        data = client.get(f"/play/{rooms['classic'].slug}/tables.json").json()
        assert data["open"][0]["players"][0]["rating"] is None
    finally:
        hooks.register_rating_labels(selectors.rating_labels)


def test_a_failing_answer_breaks_no_list(rooms, make_user, client):
    def broken(user_ids, mode):
        raise RuntimeError("down")

    hooks.register_rating_labels(broken)
    try:
        games_services.table_create(user=make_user(), room=rooms["classic"])
        assert client.get(f"/play/{rooms['classic'].slug}/tables.json").status_code == 200
    finally:
        hooks.unregister_ratings(broken)
