"""Lobby, room, table and game pages, their forms and JSON endpoints."""
from __future__ import annotations

import json

import pytest
from django.test import Client
from django.urls import reverse

from accounts.services import account_close
from games import services
from games.models import Game, Room, Table, TableStatus

pytestmark = pytest.mark.django_db


@pytest.fixture
def alice_client(client, make_user, rooms):
    user = make_user("alice")
    client.force_login(user)
    client.user = user
    return client


def test_default_rooms_exist_from_the_migration():
    slugs = set(Room.objects.values_list("slug", flat=True))
    assert {"beginners", "rummy-3-4", "classic", "straight", "oklahoma", "hollywood",
            "rummy"} <= slugs
    assert not Room.objects.get(slug="beginners").allow_rated


def test_lobby_and_room_pages(client, rooms):
    page = client.get(reverse("games:lobby"))
    assert page.status_code == 200 and b"Beginners" in page.content
    data = client.get(reverse("games:rooms_json")).json()
    assert {r["slug"] for r in data["rooms"]} >= {"beginners", "rummy-3-4"}
    page = client.get(reverse("games:room", args=["classic"]))
    assert page.status_code == 200 and b"Create a table" in page.content
    assert client.get(reverse("games:room", args=["nope"])).status_code == 404


def test_room_json_lists_public_tables_and_who_is_online(alice_client, rooms, make_user):
    bob = make_user("bob")
    services.table_create(user=bob, room=rooms["classic"])
    hidden = services.table_create(user=bob, room=rooms["classic"], private=True)
    data = alice_client.get(reverse("games:room_json", args=["classic"])).json()
    assert [t["id"] for t in data["open"]] and hidden.pk not in [t["id"] for t in data["open"]]
    assert data["open"][0]["players"][0]["name"] == "bob"
    assert "alice" in [p["username"] for p in data["online"]]
    # someone seen in the room whose account is then deleted is no longer listed (nor linked)
    carol = make_user("carol")
    c = Client()
    c.force_login(carol)
    c.get(reverse("games:room_json", args=["classic"]))
    carol.delete()
    data = alice_client.get(reverse("games:room_json", args=["classic"])).json()
    assert [p["username"] for p in data["online"]] == ["alice"] and data["online_count"] == 1
    # nor is one whose account is closed
    dave = make_user("dave")
    c.force_login(dave)
    c.get(reverse("games:room_json", args=["classic"]))
    assert "dave" in [p["username"] for p in alice_client.get(
        reverse("games:room_json", args=["classic"])).json()["online"]]
    account_close(user=dave)
    data = alice_client.get(reverse("games:room_json", args=["classic"])).json()
    assert [p["username"] for p in data["online"]] == ["alice"] and data["online_count"] == 1


def test_create_table_form_errors(alice_client, rooms):
    url = reverse("games:table_create", args=["classic"])
    response = alice_client.post(url, {"seats": "2", "seconds_per_turn": "0"})
    assert response.status_code == 400
    assert b"Untimed games are only for playing the computer" in response.content
    response = alice_client.post(url, {"seats": "3", "seconds_per_turn": "30"})
    assert response.status_code == 400
    response = alice_client.post(url, {"seats": "2", "seconds_per_turn": "30", "target": "5"})
    assert response.status_code == 400
    assert Table.objects.count() == 0
    # Beginners offers no rated games: asking for one is refused (it was made casual without
    # a word; test_a_rated_table_asked_of_the_beginners_room_is_refused)
    response = alice_client.post(reverse("games:table_create", args=["beginners"]),
                                 {"seats": "2", "seconds_per_turn": "30", "rated": "on"})
    assert response.status_code == 400 and Table.objects.count() == 0


def test_create_sit_and_start(alice_client, client, rooms, make_user):
    url = reverse("games:table_create", args=["classic"])
    response = alice_client.post(url, {"seats": "2", "seconds_per_turn": "30",
                                       "rated": "on"})
    table = Table.objects.get()
    assert response.status_code == 302 and response["Location"] == table.get_absolute_url()
    page = alice_client.get(table.get_absolute_url())
    assert page.status_code == 200
    data = json.loads(page.content.split(b'id="table-data" type="application/json">')[1]
                      .split(b"</script>")[0])
    assert data["snapshot"]["you"]["seat"] == 0 and data["ws_url"] == f"/ws/table/{table.pk}/"
    bob = make_user("bob")
    client.force_login(bob)
    response = client.post(reverse("games:table_sit", args=[table.pk]), {"seat": "1"})
    assert response.status_code == 302
    table.refresh_from_db()
    assert table.status == TableStatus.PLAYING


def test_a_waiting_table_is_joined_from_the_room_in_one_press(alice_client, rooms, make_user):
    """A row of the room's waiting tables has a Join button (it took opening the table
    first); a visitor who is not signed in gets none."""
    table = services.table_create(user=make_user("host"), room=rooms["classic"])
    join = f'action="/tables/{table.pk}/sit/"'
    assert join not in Client().get("/play/classic/").content.decode()
    page = alice_client.get("/play/classic/").content.decode()
    assert join in page and 'data-join-token="' in page
    answer = alice_client.post(f"/tables/{table.pk}/sit/")
    assert answer.status_code == 302 and answer["Location"] == table.get_absolute_url()
    table.refresh_from_db()
    assert table.status == TableStatus.PLAYING
    # a full table's row has none (it is in "Playing now")
    assert join not in alice_client.get("/play/classic/").content.decode()


def test_a_rooms_tables_filter_by_rated_time_and_players(alice_client, rooms, make_user):
    """A room listed every table: it now filters them (rated or casual, time per turn,
    players), in its page and in the JSON its script polls, with the query in the address."""
    rated = services.table_create(user=make_user("r30"), room=rooms["classic"], rated=True)
    fast = services.table_create(user=make_user("c15"), room=rooms["classic"],
                                 seconds_per_turn=15)
    slow = services.table_create(user=make_user("c60"), room=rooms["classic"],
                                 seconds_per_turn=60)
    url = reverse("games:room_json", args=["classic"])

    def listed(query):
        return {t["id"] for t in alice_client.get(url + query).json()["open"]}

    assert listed("") == {rated.pk, fast.pk, slow.pk}
    assert listed("?rated=rated") == {rated.pk}
    assert listed("?rated=casual") == {fast.pk, slow.pk}
    assert listed("?rated=casual&time=15") == {fast.pk}
    assert listed("?rated=rated&time=60") == set()
    assert listed("?rated=&time=&utm=x") == {rated.pk, fast.pk, slow.pk}  # "any"
    page = alice_client.get("/play/classic/?time=60").content.decode()
    assert f"Table {slow.pk}<" in page and f"Table {fast.pk}<" not in page
    assert '<option value="60" selected>' in page
    assert 'id="room-filters-clear">' in page  # "Show all tables", not hidden
    page = alice_client.get("/play/classic/?time=30&rated=casual").content.decode()
    assert "No waiting table matches these filters." in page
    # the players filter is only where a game has a choice of players
    three = services.table_create(user=make_user("rummy3"), room=rooms["rummy"], seat_count=3)
    services.table_create(user=make_user("rummy2"), room=rooms["rummy"], seat_count=2)
    assert {t["id"] for t in alice_client.get(
        reverse("games:room_json", args=["rummy"]) + "?seats=3").json()["open"]} == {three.pk}
    assert 'name="seats"' not in alice_client.get("/play/classic/").content.decode().split(
        'id="room-filters"')[1].split("</form>")[0]


@pytest.mark.parametrize("query", ["?time=abc", "?time=0", "?time=%C2%B2", "?rated=maybe",
                                   "?seats=3", "?seats=" + "9" * 40, "?rated=rated&time=7"])
def test_a_bad_filter_is_a_400_that_lists_every_table(alice_client, rooms, make_user, query):
    table = services.table_create(user=make_user("host"), room=rooms["classic"])
    answer = alice_client.get(reverse("games:room_json", args=["classic"]) + query)
    assert answer.status_code == 400 and answer.json()["error"] == "bad_filter"
    page = alice_client.get("/play/classic/" + query)
    assert page.status_code == 400
    assert 'class="errorlist" role="alert"' in page.content.decode()
    assert f"Table {table.pk}<" in page.content.decode()


def test_beginners_have_no_rated_filter(alice_client, rooms):
    page = alice_client.get("/play/beginners/").content.decode()
    assert 'name="time"' in page and 'name="rated"' not in page
    assert alice_client.get(
        reverse("games:room_json", args=["beginners"]) + "?rated=rated").status_code == 400


@pytest.mark.parametrize("asked", [{"rated": "on"}, {"rated": "true"}, {"rating_range": "100"}])
def test_a_rated_table_asked_of_the_beginners_room_is_refused(alice_client, rooms, asked):
    """An outside audit: ``rated=on`` made a casual table without a word (Play now's filter
    answers 400 "Every game here is casual.")."""
    response = alice_client.post(reverse("games:table_create", args=["beginners"]),
                                 {"seats": "2", "seconds_per_turn": "30", **asked})
    assert response.status_code == 400
    assert "Every game here is casual." in response.content.decode()
    assert not Table.objects.exists()
    made = alice_client.post(reverse("games:table_create", args=["beginners"]),
                             {"seats": "2", "seconds_per_turn": "30", "rated": "false"})
    assert made.status_code == 302 and Table.objects.get().rated is False


def test_private_table_page(alice_client, client, rooms, make_user):
    table = services.table_create(user=alice_client.user, room=rooms["classic"], private=True)
    owner_page = alice_client.get(table.get_absolute_url())
    assert table.invite_token.encode() in owner_page.content
    bob = make_user("bob")
    client.force_login(bob)
    # a stranger gets the very page of a table that never was: nothing tells it exists
    def main(response):
        html = response.content.decode()
        return html[html.index("<main"):html.index("</main>")]

    hidden, missing = client.get(table.get_absolute_url()), client.get("/tables/999999/")
    assert hidden.status_code == missing.status_code == 404
    assert main(hidden) == main(missing)
    odd = client.get(f"{table.get_absolute_url()}?invite=%C3%BC")  # (no 500 for non-ASCII)
    assert odd.status_code == 404 and main(odd) == main(missing)
    ok = client.get(f"{table.get_absolute_url()}?invite={table.invite_token}")
    assert ok.status_code == 200


def test_a_private_game_is_its_players_alone_once_started(client, rooms, make_user):
    """An outside audit: anyone holding a private table's invite link could watch its game,
    and read its seed once it was over. The link opens the table while it waits for its
    players; from the start, only they (and a player who left a game that went on) see it."""
    alice, bob, carol = make_user("alice"), make_user("bob"), make_user("carol")
    table = services.table_create(user=alice, room=rooms["classic"], private=True)
    link = f"{table.get_absolute_url()}?invite={table.invite_token}"
    client.force_login(carol)
    assert client.get(link).status_code == 200  # waiting: the link shows it, to sit down
    services.table_sit(table_id=table.pk, user=bob, invite=table.invite_token)
    assert Table.objects.get(pk=table.pk).status == TableStatus.PLAYING
    late = client.get(link)
    assert late.status_code == 403
    html = late.content.decode()
    assert "This private game has started" in html and table.invite_token not in html
    assert "table-data" not in html
    # a seat asked with the link says why there is none (it read "There is no such table",
    # to someone invited to it); without the link, still as a table that never was
    from games.exceptions import NotOpen, TableNotFound

    with pytest.raises(NotOpen, match="This private game has started"):
        services.table_sit(table_id=table.pk, user=carol, invite=table.invite_token)
    with pytest.raises(TableNotFound):
        services.table_sit(table_id=table.pk, user=carol)
    # without the link: as a table that never was; the players: their table
    assert client.get(table.get_absolute_url()).status_code == 404
    client.force_login(alice)
    assert client.get(table.get_absolute_url()).status_code == 200
    client.logout()
    assert client.get(link).status_code == 403  # nor an anonymous visitor
    # over: still the players' alone (its seed is in the finished table's frame)
    services.table_resign(table_id=table.pk, user=bob)
    assert Table.objects.get(pk=table.pk).status == TableStatus.FINISHED
    client.force_login(carol)
    assert client.get(link).status_code == 403
    client.force_login(bob)
    assert client.get(table.get_absolute_url()).status_code == 200


def test_which_tables_open_to_whom_without_a_link_is_one_rule_answered_in_one_query(
        rooms, make_user, django_assert_num_queries):
    """``tables_open_to`` (many tables at once: a tournament's page) answers as
    ``table_access`` does for each table, without an invite link."""
    from django.contrib.auth.models import AnonymousUser

    from games import selectors

    ann, ben, cat = make_user("ann"), make_user("ben"), make_user("cat")
    public = services.table_create(user=ann, room=rooms["classic"])
    made = services.table_create(user=ann, room=rooms["classic"], private=True)
    seated = services.table_create(user=cat, room=rooms["classic"], private=True)
    services.table_sit(table_id=seated.pk, user=ben, invite=seated.invite_token)
    tables = list(Table.objects.filter(pk__in=[public.pk, made.pk, seated.pk]))
    for user in (ann, ben, cat, AnonymousUser()):
        with django_assert_num_queries(1 if user.is_authenticated else 0):
            got = selectors.tables_open_to(user, tables)
        assert got == {t.pk for t in tables if selectors.table_access(t, user, None)[0]}
    assert selectors.tables_open_to(ann, tables) == {public.pk, made.pk}
    assert selectors.tables_open_to(ben, tables) == {public.pk, seated.pk}
    assert selectors.tables_open_to(AnonymousUser(), tables) == {public.pk}


@pytest.mark.parametrize(("action", "form"), [
    ("games:table_sit", {"seat": "abc"}),
    ("games:table_bot", {"seat": "1", "level": "9"}),
    ("games:table_bot", {"seat": "abc", "level": "1"}),
])
def test_a_table_action_with_a_form_that_is_not_one_is_a_400(alice_client, rooms, make_user,
                                                              action, form):
    """An outside audit: these redirected (302) as a refusal of the rules does."""
    table = services.table_create(user=make_user("bob"), room=rooms["rummy"], seat_count=3)
    response = alice_client.post(reverse(action, args=[table.pk]), form)
    assert response.status_code == 400 and response.content.decode().startswith("Choose a")
    assert not table.seats.filter(index__gt=0).exclude(user=None, bot_level=None).exists()


def test_add_bot_and_leave(alice_client, rooms):
    table = services.table_create(user=alice_client.user, room=rooms["rummy"], seat_count=3)
    alice_client.post(reverse("games:table_bot", args=[table.pk]), {"seat": "1", "level": "1"})
    assert table.seats.get(index=1).bot_level == 1
    response = alice_client.post(reverse("games:table_leave", args=[table.pk]))
    assert response.status_code == 302
    table.refresh_from_db()
    assert table.status == TableStatus.ABANDONED


def test_play_the_computer_one_click(alice_client, rooms):
    response = alice_client.post(reverse("games:play_computer"),
                                 {"mode": "hollywood", "level": "1"})
    table = Table.objects.get()
    assert response.status_code == 302 and table.status == TableStatus.PLAYING
    assert table.mode == "hollywood" and table.seconds_per_turn == 0
    bad = alice_client.post(reverse("games:play_computer"), {"mode": "chess", "level": "1"})
    assert bad.status_code == 400


def _finished_game(user, rooms, mode="hollywood"):
    table = services.play_computer(user=user, mode=mode, level=1)
    services.table_resign(table_id=table.pk, user=user)
    return Game.objects.get(table=table)


def test_a_shutouts_hand_points_are_shown_before_the_doubling(alice_client):
    """The record's bonus table read "hand points 200" for a shutout of 100 (the doubled
    figure), where the table's own panel said "Hand points 100, Shutout: doubled 200"."""
    from tests.support.records import make_game

    game = make_game([alice_client.user, 1], mode="straight")
    game.hands = [{"hand_number": 1, "winner": 0, "points": 100, "outcome": "gin"}]
    game.final["result"] = {"columns": [{
        "column": 0, "winner": 0, "hand_points": [100, 0], "hands_won": [1, 0],
        "shutout": True, "scored_points": [200, 0], "game_bonus": [100, 0],
        "line_bonus": [25, 0], "totals": [325, 0]}]}
    game.save()
    page = alice_client.get(game.get_absolute_url()).content.decode()
    start = page.index('class="bonus-table"')
    table = page[start:page.index("</table>", start)]
    assert ">Hand points</th><td>100</td><td>0</td>" in table
    assert ">Shutout: doubled</th><td>200</td><td>0</td>" in table
    assert ">Total (shutout)</th><td>325</td>" in table
    # (its caption said "Bonuses" over hand points and totals; its labels are the panel's)
    assert "<caption>How the totals are made</caption>" in table


def test_game_page_and_record_exports(alice_client, rooms):
    game = _finished_game(alice_client.user, rooms)
    page = alice_client.get(game.get_absolute_url())
    assert page.status_code == 200 and b"Score sheet" in page.content
    assert b"Resignation" in page.content
    record = alice_client.get(reverse("games:game_record_json", args=[game.pk])).json()
    assert record["seed"] == game.seed and record["ending"] == "resignation"
    assert record["players"][0]["username"] == "alice"
    text = alice_client.get(reverse("games:game_record_txt", args=[game.pk]))
    assert text.status_code == 200 and b"alice" in text.content
    from games import engine as E

    rec = E.GameRecord.from_text(text.content.decode())
    assert rec.seed == game.seed and rec.players[0] == "alice"
    assert record["engine"]["format"] == "gin-record/1"
    assert alice_client.get(reverse("games:game", args=[99999])).status_code == 404


def test_my_games(alice_client, rooms):
    game = _finished_game(alice_client.user, rooms, mode="classic")
    page = alice_client.get(reverse("games:my_games"))
    assert page.status_code == 200 and game.get_absolute_url().encode() in page.content


def test_anonymous_users_are_sent_to_log_in(client, rooms):
    for name, args in [("table_create", ["classic"]), ("play_computer", []),
                       ("table_sit", [1]), ("table_leave", [1]), ("table_bot", [1])]:
        response = client.post(reverse(f"games:{name}", args=args))
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    response = client.get(reverse("games:my_games"))
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_chat_text_is_escaped_in_the_page_data(alice_client, rooms):
    table = services.table_create(user=alice_client.user, room=rooms["classic"])
    services.chat_post(table_id=table.pk, user=alice_client.user,
                       text="</script><script>alert(1)</script>")
    page = alice_client.get(table.get_absolute_url())
    assert b"</script><script>alert(1)" not in page.content
    assert b"\\u003C/script\\u003E" in page.content


def test_the_add_computer_menu_uses_the_servers_level_names(alice_client, rooms):
    table = services.table_create(user=alice_client.user, room=rooms["classic"])
    page = alice_client.get(table.get_absolute_url())
    data = json.loads(page.content.split(b'id="table-data" type="application/json">')[1]
                      .split(b"</script>")[0])
    # level 3 is Hard and 4 the Expert, as the server plays them (the menu once said
    # "Beginner, Easy, Medium, Hard", so choosing "Hard" added an Expert)
    assert data["bot_levels"] == [[1, "Easy"], [2, "Medium"], [3, "Hard"], [4, "Expert"]]
    assert data["room_url"] == "/play/classic/"


def test_a_visitor_at_a_waiting_table_is_offered_an_account_and_comes_back(
        alice_client, rooms, make_user):
    """A friend's invite link opened by someone with no account: the table says how to sit
    down (sign up or log in) and both lead back to this very link, invite included."""
    from django.test import Client
    from django.utils.http import urlencode

    table = services.table_create(user=alice_client.user, room=rooms["classic"], private=True)
    link = f"{table.get_absolute_url()}?invite={table.invite_token}"
    visitor = Client()
    response = visitor.get(link)
    back = urlencode({"next": link})
    data = response.context["table_data"]
    assert data["sign_in"] == {"login": f"/accounts/login/?{back}",
                               "signup": f"/accounts/signup/?{back}"}
    page = response.content.decode()
    assert f'href="/accounts/signup/?{back}"'.replace("&", "&amp;") in page
    # the link leads back: logging in with it lands on the table, invite and all
    make_user("bob")
    response = visitor.post(f"/accounts/login/?{back}",
                            {"login": "bob", "password": "a-Strong-pass-123"})
    assert response.status_code == 302 and response.url == link
    # signed in, or a game under way: nothing to offer
    assert "sign_in" not in visitor.get(link).context["table_data"]
    assert "sign_in" not in alice_client.get(link).context["table_data"]
    Table.objects.filter(pk=table.pk).update(status=TableStatus.PLAYING)
    # (a private game under way is its players' alone: the link opens it no more)
    assert Client().get(link).status_code == 403
