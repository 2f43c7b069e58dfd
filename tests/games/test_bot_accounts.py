"""Bot accounts never sit at tables as a person does: the lobby's forms, the sit button and
the table socket's ``sit`` refuse them (docs/bot-api.md, "Bot accounts"); they come to tables
only through the services that pair players (``table_create_for_players``)."""
from __future__ import annotations

import pytest
from django.urls import reverse

from games import services
from games.exceptions import BotAccountRefused
from games.models import Seat, Table, TableStatus
from tests.support.accounts import make_bot

pytestmark = pytest.mark.django_db


@pytest.fixture
def bot(make_user):
    return make_bot(make_user("robo"))


@pytest.fixture
def bot_client(client, bot):
    client.force_login(bot)
    return client


def test_a_bot_cannot_open_a_table(bot_client, bot, rooms):
    room = bot_client.get(reverse("games:room", args=["classic"])).content.decode()
    assert "they play through the API" in room and "Create the table" not in room
    lobby = bot_client.get(reverse("games:lobby")).content.decode()
    assert "they play through the API" in lobby and "Start a game" not in lobby
    response = bot_client.post(reverse("games:table_create", args=["classic"]),
                               {"seats": "2", "seconds_per_turn": "30"})
    assert response.status_code == 400 and b"through the API" in response.content
    response = bot_client.post(reverse("games:play_computer"), {"mode": "classic", "level": "1"})
    assert response.status_code == 302
    assert not Table.objects.exists()
    with pytest.raises(BotAccountRefused):
        services.play_computer(user=bot, mode="classic", level=4)


def test_a_bot_cannot_sit(bot_client, bot, rooms, make_user):
    from games import selectors

    alice = make_user("alice")
    table = services.table_create(user=alice, room=rooms["classic"])
    assert selectors.table_snapshot(table.pk, alice, 0)["you"]["can_sit"] is False
    assert selectors.table_snapshot(table.pk, make_user("bob"), None)["you"]["can_sit"] is True
    assert selectors.table_snapshot(table.pk, bot, None)["you"]["can_sit"] is False
    response = bot_client.post(reverse("games:table_sit", args=[table.pk]), {"seat": "1"})
    assert response.status_code == 302
    assert not Seat.objects.filter(user=bot).exists()
    with pytest.raises(BotAccountRefused) as caught:
        services.table_sit(table_id=table.pk, user=bot)
    assert caught.value.code == "bot_account"
    table.refresh_from_db()
    assert table.status == TableStatus.OPEN


def test_a_bot_is_seated_by_the_pairing_service(bot, rooms, make_user):
    table = services.table_create_for_players(room=rooms["classic"],
                                              players=[bot, make_user("alice")])
    assert table.status == TableStatus.PLAYING
    assert table.seats.get(index=0).user == bot


def test_a_bot_carries_its_badge_where_its_name_is_shown(client, bot, make_user, rooms):
    from tests.support.records import finished_game

    alice = make_user("alice")
    game = finished_game([bot, alice])
    badge = 'class="badge badge-bot"'
    assert badge in client.get(bot.get_absolute_url()).content.decode()
    assert badge not in client.get(alice.get_absolute_url()).content.decode()
    assert client.get(game.get_absolute_url()).content.decode().count(badge) == 1
    assert client.get(reverse("games:player_games", args=["alice"])).content.decode() \
        .count(badge) == 1
    client.force_login(alice)
    assert client.get("/games/").content.decode().count(badge) == 1


def test_table_frames_mark_a_bot_accounts_seat(bot, make_user, rooms):
    from games import selectors

    alice = make_user("alice")
    table = services.table_create_for_players(room=rooms["classic"], players=[bot, alice])
    seats = selectors.table_snapshot(table.pk, alice, 1)["seats"]
    assert [(s["username"], s["kind"], s["is_bot"]) for s in seats] == [
        ("robo", "user", True), ("alice", "user", False)]
    computer = services.play_computer(user=alice, mode="classic", level=1)
    seats = selectors.table_snapshot(computer.pk, alice, 0)["seats"]
    assert [s["is_bot"] for s in seats] == [False, False] and seats[1]["kind"] == "bot"

