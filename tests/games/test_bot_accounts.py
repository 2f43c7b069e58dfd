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



def _bot_game(bot) -> Table:
    """A casual game of the bot against the Easy computer, as ``POST /api/bot/computer/``
    opens it; the bot's turn first if the deal gives it to the computer (the Easy bot plays
    at once in these tests)."""
    return services.play_computer(user=bot, mode="classic", level=1, bot_api=True)


@pytest.mark.django_db(transaction=True)
async def test_a_bots_own_session_only_watches_its_table(bot, rooms):
    """An audit signed in as a bot, opened its game's page and played its moves and asked for
    the Hard computer's hints from the site: a bot plays with its token only."""
    from channels.db import database_sync_to_async
    from channels.testing import WebsocketCommunicator

    from ginsite.asgi import application
    from tests.support.accounts import api_token
    from tests.support.sockets import connect, recv, send

    table = await database_sync_to_async(_bot_game)(bot)
    site = await connect(table.pk, bot)
    try:
        snap = await recv(site, "snapshot")
        assert snap["you"]["seat"] is None  # shown as a spectator sees it
        assert all("hand" not in s or not s["hand"] for s in snap["seats"])
        version = snap["version"]
        for message in ({"type": "action", "id": "m1", "version": version,
                         "action": "draw:stock"},
                        {"type": "hint", "id": "h1"}, {"type": "resign", "id": "r1"},
                        {"type": "leave", "id": "l1"}, {"type": "claim", "id": "c1"}):
            await send(site, message)
            err = await recv(site, "error")
            assert err["code"] == "bot_account" and err["id"] == message["id"]
            assert "with their token, not from the site" in err["message"]
    finally:
        await site.disconnect()

    def stored():
        t = Table.objects.get(pk=table.pk)
        return t.status, t.version, Seat.objects.get(table=t, index=0).connected

    status, after, connected = await database_sync_to_async(stored)()
    assert status == TableStatus.PLAYING and after == version and not connected
    # the same account with its token plays its seat
    raw = await database_sync_to_async(api_token)(bot, "bot:play")
    comm = WebsocketCommunicator(application, f"/ws/table/{table.pk}/",
                                 headers=[(b"authorization", f"Bearer {raw}".encode())])
    connected, _ = await comm.connect()
    assert connected
    site = await connect(table.pk, bot)
    try:
        snap = await recv(comm, "snapshot")
        assert snap["you"]["seat"] == 0
        assert (await recv(site, "snapshot"))["you"]["seat"] is None
        # the table moves on (the bot resigns with its token): the site's page is sent the
        # spectators' frame and stays a spectator's, not taken for the bot's seat
        await send(comm, {"type": "resign", "id": "r9"})
        assert (await recv(comm, "ack"))["id"] == "r9"
        seen = []
        while not await site.receive_nothing(timeout=1):
            seen.append(await recv(site))
        assert any(f["type"] == "state" for f in seen)
        assert not any(f["type"] == "snapshot" and f["you"]["seat"] is not None for f in seen)
        await send(site, {"type": "rematch", "id": "m2", "accept": True})
        assert (await recv(site, "error"))["code"] == "bot_account"
    finally:
        await comm.disconnect()
        await site.disconnect()


def test_a_bots_own_session_cannot_close_resign_or_add_a_computer(bot_client, bot, rooms):
    table = _bot_game(bot)
    lobby = bot_client.get(reverse("games:lobby")).content.decode()
    assert f'aria-label="Watch table {table.pk}"' in lobby
    assert "Resign…" not in lobby and ">Resume<" not in lobby
    for name, data in (("games:table_close", {"resign": "yes"}),
                       ("games:table_leave", {}),
                       ("games:table_bot", {"seat": "1", "level": "2"})):
        response = bot_client.post(reverse(name, args=[table.pk]), data, follow=True)
        assert response.status_code == 200, name
        assert "with their token, not from the site" in response.content.decode(), name
    table.refresh_from_db()
    assert table.status == TableStatus.PLAYING
