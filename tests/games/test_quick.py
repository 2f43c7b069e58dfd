"""Play now (``services.table_quick`` and ``POST /play/<room>/quick/``): a seat at the first
waiting table of the room that fits the player's choices, or a new table with them."""
from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from games import services
from games.exceptions import TooManyTables
from games.models import Table, TableStatus
from leaderboards.models import Rating

pytestmark = pytest.mark.django_db


def _rated(user, rating):
    Rating.objects.create(user=user, mode="classic", rating=rating, mu=rating, sigma=90,
                          provisional=False, games=30)


def test_it_joins_the_oldest_table_that_fits(rooms, make_user):
    me = make_user("me")
    rated = services.table_create(user=make_user("r"), room=rooms["classic"], rated=True)
    older = services.table_create(user=make_user("c1"), room=rooms["classic"],
                                  seconds_per_turn=15)
    newer = services.table_create(user=make_user("c2"), room=rooms["classic"],
                                  seconds_per_turn=15)
    table, joined = services.table_quick(user=me, room=rooms["classic"], rated=False,
                                         seconds_per_turn=15)
    assert joined and table.pk == older.pk
    assert Table.objects.get(pk=older.pk).status == TableStatus.PLAYING  # the last seat
    assert Table.objects.get(pk=newer.pk).status == TableStatus.OPEN
    assert Table.objects.get(pk=rated.pk).status == TableStatus.OPEN
    # "any" takes the oldest of all: the rated one
    table, joined = services.table_quick(user=make_user("you"), room=rooms["classic"])
    assert joined and table.pk == rated.pk


def test_with_nothing_that_fits_it_opens_a_table_with_those_settings(rooms, make_user):
    me = make_user("me")
    services.table_create(user=make_user("c"), room=rooms["classic"], seconds_per_turn=15)
    private = services.table_create(user=make_user("p"), room=rooms["classic"], private=True,
                                    seconds_per_turn=60)
    table, joined = services.table_quick(user=me, room=rooms["classic"], rated=True,
                                         seconds_per_turn=60)
    assert not joined and table.pk != private.pk  # a private table is never offered
    assert (table.rated, table.seconds_per_turn, table.seat_count, table.status) == (
        True, 60, 2, TableStatus.OPEN)
    assert table.seats.get(index=0).user == me
    # a second press finds only the player's own table: that one, not one more
    again, joined = services.table_quick(user=me, room=rooms["classic"], rated=True,
                                         seconds_per_turn=60)
    assert not joined and again.pk == table.pk
    assert Table.objects.filter(seats__user=me).count() == 1
    # other choices: a table of its own
    other, joined = services.table_quick(user=me, room=rooms["classic"], seconds_per_turn=30)
    assert not joined and other.pk != table.pk and other.seconds_per_turn == 30


def test_a_rummy_room_opens_its_fewest_players(rooms, make_user):
    table, joined = services.table_quick(user=make_user(), room=rooms["rummy-3-4"])
    assert not joined and table.seat_count == 3


def test_a_table_outside_the_players_range_is_passed_over(rooms, make_user):
    host, me = make_user("host"), make_user("me")
    _rated(host, 1600)
    _rated(me, 1900)
    narrow = services.table_create(user=host, room=rooms["classic"], rated=True,
                                   rating_range=100)
    table, joined = services.table_quick(user=me, room=rooms["classic"], rated=True)
    assert not joined and table.pk != narrow.pk


def test_a_table_taken_meanwhile_is_passed_over_for_the_next(rooms, make_user, monkeypatch):
    first = services.table_create(user=make_user("a"), room=rooms["classic"])
    second = services.table_create(user=make_user("b"), room=rooms["classic"])
    real_sit = services.quick.table_sit

    def racing_sit(*, table_id, user):
        if table_id == first.pk:  # someone took it between the list and the seat
            real_sit(table_id=table_id, user=make_user("fast"))
        return real_sit(table_id=table_id, user=user)

    monkeypatch.setattr(services.quick, "table_sit", racing_sit)
    table, joined = services.table_quick(user=make_user("me"), room=rooms["classic"])
    assert joined and table.pk == second.pk


def test_what_refuses_a_new_table_is_raised(rooms, make_user, settings):
    me = make_user("me")
    for seconds in (15, 30, 60):
        services.table_create(user=me, room=rooms["classic"], seconds_per_turn=seconds)
    with pytest.raises(TooManyTables):  # (rated: none of the three is)
        services.table_quick(user=me, room=rooms["classic"], rated=True)


def test_play_now_from_the_room(client, rooms, make_user):
    me = make_user("me")
    waiting = services.table_create(user=make_user("host"), room=rooms["classic"],
                                    seconds_per_turn=60)
    url = reverse("games:table_quick", args=["classic"])
    assert Client().post(url)["Location"].startswith("/accounts/login/")
    client.force_login(me)
    page = client.get("/play/classic/?time=60").content.decode()
    assert f'action="{url}"' in page and 'name="time" value="60"' in page
    answer = client.post(url, {"time": "60", "rated": "", "seats": ""})
    assert answer.status_code == 302 and answer["Location"] == waiting.get_absolute_url()
    answer = client.post(url, {"time": "15"}, follow=True)
    assert answer.status_code == 200 and "Nobody was waiting for such a game" in (
        answer.content.decode())
    mine = Table.objects.filter(seats__user=me, status=TableStatus.OPEN).get()
    assert mine.seconds_per_turn == 15
    assert client.get(url).status_code == 405


@pytest.mark.parametrize("data", [{"time": "0"}, {"time": "abc"}, {"rated": "maybe"},
                                  {"seats": "3"}, {"time": "9" * 40}])
def test_a_bad_choice_is_a_400_and_changes_nothing(client, rooms, make_user, data):
    me = make_user("me")
    client.force_login(me)
    answer = client.post(reverse("games:table_quick", args=["classic"]), data)
    assert answer.status_code == 400 and 'class="errorlist" role="alert"' in (
        answer.content.decode())
    assert not Table.objects.filter(seats__user=me).exists()


def test_a_refusal_is_told_on_the_room_page(client, rooms, make_user):
    me = make_user("me")
    for seconds in (15, 30, 60):
        services.table_create(user=me, room=rooms["classic"], seconds_per_turn=seconds)
    client.force_login(me)
    answer = client.post(reverse("games:table_quick", args=["classic"]),
                         {"time": "30", "rated": "rated"})
    assert answer.status_code == 302
    assert answer["Location"] == "/play/classic/?rated=rated&time=30"
    page = client.get(answer["Location"]).content.decode()
    assert "tables waiting for players" in page
    assert Table.objects.filter(seats__user=me).count() == 3


def test_play_now_takes_a_form_only(client, rooms, make_user):
    """A JSON body read as an empty form, "nothing chosen": it opened a table."""
    me = make_user("me")
    client.force_login(me)
    url = reverse("games:table_quick", args=["classic"])
    answer = client.post(url, data='{"rated": "rated"}', content_type="application/json")
    assert answer.status_code == 400
    answer = client.post(url, data="rated=rated", content_type="text/plain")
    assert answer.status_code == 400
    assert not Table.objects.filter(seats__user=me).exists()


def test_a_bad_filter_page_offers_play_now_with_what_its_menus_show(client, rooms, make_user):
    """With ?time=7 the menus read "Any time" but Play now carried time=7 (another 400), and
    "Show all tables" was hidden: an error with no way out but editing the address."""
    client.force_login(make_user("me"))
    page = client.get("/play/classic/?time=7&rated=rated").content.decode()
    quick = page[page.index('id="room-quick"'):page.index("</form>", page.index('id="room-quick"'))]
    assert 'name="time" value=""' in quick and 'name="rated" value="rated"' in quick
    assert 'id="room-filters-clear">' in page  # shown


def test_join_is_offered_only_to_who_may_sit(client, rooms, make_user):
    """tables.json said can_join for the player's own waiting table (whose row had Join,
    answered "You already have a seat"), for a bot account and for a visitor."""
    from accounts.models import User

    host = make_user("host")
    table = services.table_create(user=host, room=rooms["classic"])
    url = reverse("games:room_json", args=["classic"])

    def row(user):
        c = Client()
        if user is not None:
            c.force_login(user)
        return next(t for t in c.get(url).json()["open"] if t["id"] == table.pk), c

    seen, c = row(host)
    assert (seen["can_join"], seen["yours"]) == (False, True)
    page = c.get("/play/classic/").content.decode()
    assert f'action="/tables/{table.pk}/sit/"' not in page and "Your table: waiting" in page
    assert row(None)[0]["can_join"] is False
    bot = make_user("robo")
    User.objects.filter(pk=bot.pk).update(is_bot=True)
    bot.refresh_from_db()
    assert row(bot)[0]["can_join"] is False
    seen, c = row(make_user("guest"))
    assert (seen["can_join"], seen["yours"]) == (True, False)
    assert f'action="/tables/{table.pk}/sit/"' in c.get("/play/classic/").content.decode()
