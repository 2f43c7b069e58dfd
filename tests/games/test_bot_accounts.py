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
    response = bot_client.post(reverse("games:table_create", args=["classic"]),
                               {"seats": "2", "seconds_per_turn": "30"})
    assert response.status_code == 400 and b"through the API" in response.content
    response = bot_client.post(reverse("games:play_computer"), {"mode": "classic", "level": "1"})
    assert response.status_code == 302
    assert not Table.objects.exists()
    with pytest.raises(BotAccountRefused):
        services.play_computer(user=bot, mode="classic", level=4)


def test_a_bot_cannot_sit(bot_client, bot, rooms, make_user):
    table = services.table_create(user=make_user("alice"), room=rooms["classic"])
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
