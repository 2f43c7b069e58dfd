"""Blocks reach the tables: someone you block (or who blocks you) cannot join or
watch your private tables, nor see or join your public ones in the rooms, and neither of you
sees the other's table chat. Nobody is told.

``games`` asks through ``games.hooks``; ``social`` registers the answers in its app config, so
these tests go through the real registration and the real ``social.services.block_add``.
"""
from __future__ import annotations

import json

import pytest
from channels.db import database_sync_to_async
from django.core.cache import cache
from django.test import Client

from games import hooks, selectors, services
from games.exceptions import RematchRefused, SeatRefused, TableNotFound
from games.models import ChatMessage, Seat, Table, TableStatus
from social import services as social_services
from tests.support.sockets import connect, recv, send
from tests.support.tables import start_table

pytestmark = pytest.mark.django_db(transaction=True)

WRONG_INVITE = "There is no such table."


@pytest.fixture
def people(make_user):
    return {name: make_user(name) for name in ("alice", "bob", "carol", "dave")}


def _private_table(room, creator, seats=2):
    return services.table_create(user=creator, room=room, seat_count=seats, private=True)


def _refused_like_a_wrong_invite(table, user, invite):
    before = Table.objects.get(pk=table.pk).version
    with pytest.raises(TableNotFound) as wrong:
        services.table_sit(table_id=table.pk, user=user, invite="not-the-token")
    with pytest.raises(TableNotFound) as blocked:
        services.table_sit(table_id=table.pk, user=user, invite=invite)
    assert blocked.value.message == wrong.value.message == WRONG_INVITE
    assert blocked.value.code == wrong.value.code
    assert Table.objects.get(pk=table.pk).version == before
    assert not Seat.objects.filter(table=table, user=user).exists()


# ------------------------------------------------------------------------- private tables


def test_someone_the_creator_blocks_cannot_sit_even_with_the_link(rooms, people):
    alice, carol = people["alice"], people["carol"]
    table = _private_table(rooms["classic"], alice)
    social_services.block_add(user=alice, target=carol)
    _refused_like_a_wrong_invite(table, carol, table.invite_token)
    # Someone else with the link still sits down, and the game starts.
    services.table_sit(table_id=table.pk, user=people["bob"], invite=table.invite_token)
    assert Table.objects.get(pk=table.pk).status == TableStatus.PLAYING


def test_someone_who_blocks_the_creator_cannot_sit_either(rooms, people):
    alice, carol = people["alice"], people["carol"]
    table = _private_table(rooms["classic"], alice)
    social_services.block_add(user=carol, target=alice)
    _refused_like_a_wrong_invite(table, carol, table.invite_token)


def test_a_block_with_any_seated_player_refuses_the_seat(rooms, people):
    alice, bob, dave = people["alice"], people["bob"], people["dave"]
    table = _private_table(rooms["rummy-3-4"], alice, seats=4)
    services.table_sit(table_id=table.pk, user=bob, invite=table.invite_token)
    social_services.block_add(user=bob, target=dave)
    _refused_like_a_wrong_invite(table, dave, table.invite_token)
    # Once bob has left, dave (who has no quarrel with alice) may sit.
    services.table_leave(table_id=table.pk, user=bob)
    services.table_sit(table_id=table.pk, user=dave, invite=table.invite_token)
    assert Seat.objects.filter(table=table, user=dave).exists()


def test_unblocking_lets_them_in_again(rooms, people):
    alice, carol = people["alice"], people["carol"]
    table = _private_table(rooms["classic"], alice)
    social_services.block_add(user=alice, target=carol)
    social_services.block_remove(user=alice, target=carol)
    services.table_sit(table_id=table.pk, user=carol, invite=table.invite_token)
    assert Seat.objects.get(table=table, user=carol).index == 1


def test_a_block_keeps_each_from_the_others_public_tables(rooms, people):
    """A public table is listed to everyone in its room but the people a block joins to
    someone seated there, and neither may sit with the other (an outside audit: carol, whom
    alice blocks, saw "alice" waiting in the room's list, sat down and played her). Nobody is
    told: the seat is refused as a message is, and the table can still be watched."""
    alice, bob, carol, dave = (people[n] for n in ("alice", "bob", "carol", "dave"))
    social_services.block_add(user=alice, target=carol)
    table = services.table_create(user=alice, room=rooms["classic"])
    clients = {}
    for user in (bob, carol):
        clients[user.username] = Client()
        clients[user.username].force_login(user)

    def listed(name):
        data = clients[name].get("/play/classic/tables.json").json()
        lobby = clients[name].get("/play/rooms.json").json()["rooms"]
        count = next(r for r in lobby if r["slug"] == "classic")["open_tables"]
        return [row["id"] for row in data["open"]], count

    assert listed("bob") == ([table.pk], 1)
    assert listed("carol") == ([], 0)
    before = Table.objects.get(pk=table.pk).version
    response = clients["carol"].post(f"/tables/{table.pk}/sit/", follow=True)
    assert "You cannot sit at this table." in response.content.decode()
    assert Table.objects.get(pk=table.pk).version == before
    assert not Seat.objects.filter(table=table, user=carol).exists()
    assert clients["carol"].get(f"/tables/{table.pk}/").status_code == 200  # still watched
    # Play now passes it over for a table of her own; the other way round, alice is refused
    # a seat at carol's table too
    own, joined = services.table_quick(user=carol, room=rooms["classic"])
    assert not joined and own.pk != table.pk
    with pytest.raises(SeatRefused):
        services.table_sit(table_id=own.pk, user=alice)
    # someone else sits, and the game they play is listed to bob but not to carol
    services.table_sit(table_id=table.pk, user=dave)
    playing = clients["carol"].get("/play/classic/tables.json").json()["playing"]
    assert table.pk not in [row["id"] for row in playing]
    assert table.pk in [row["id"] for row in
                        clients["bob"].get("/play/classic/tables.json").json()["playing"]]
    social_services.block_remove(user=alice, target=carol)
    assert table.pk in [row["id"] for row in
                        clients["carol"].get("/play/classic/tables.json").json()["playing"]]


def test_no_rematch_once_a_block_joins_the_players(rooms, people):
    """A block made during a game: its rematch would seat the two together again."""
    alice, carol = people["alice"], people["carol"]
    table = start_table(rooms["classic"], [alice, carol])
    for user in (alice, carol):
        services.seat_presence(table_id=table.pk, user=user, connected=True)
    services.table_resign(table_id=table.pk, user=carol)
    social_services.block_add(user=alice, target=carol)
    for user in (carol, alice):
        with pytest.raises(RematchRefused):
            services.table_rematch(table_id=table.pk, user=user)
    assert Table.objects.get(pk=table.pk).rematch_offers in ([], None)


def test_blocked_user_cannot_watch_a_private_table_page(rooms, people):
    alice, carol, bob = people["alice"], people["carol"], people["bob"]
    table = _private_table(rooms["classic"], alice)
    social_services.block_add(user=alice, target=carol)
    url = f"{table.get_absolute_url()}?invite={table.invite_token}"
    client = Client()
    client.force_login(carol)
    blocked = client.get(url)
    wrong = client.get(f"{table.get_absolute_url()}?invite=nope")
    assert blocked.status_code == wrong.status_code == 404

    def main(response):
        html = response.content.decode()
        return html[html.index("<main"):html.index("</main>")]

    assert main(blocked) == main(wrong)  # not a word about the block
    assert table.invite_token.encode() not in blocked.content
    client.force_login(bob)
    assert client.get(url).status_code == 200


async def test_blocked_user_socket_is_closed_like_a_wrong_invite(rooms, people):
    alice, carol = people["alice"], people["carol"]
    table = await database_sync_to_async(_private_table)(rooms["classic"], alice)
    await database_sync_to_async(social_services.block_add)(user=carol, target=alice)
    comm = await connect(table.pk, carol, query=f"invite={table.invite_token}")
    assert await comm.receive_output(timeout=3) == {"type": "websocket.close", "code": 4404}
    await comm.disconnect()


# ------------------------------------------------------------------------- table chat


async def _connect_all(table, *users):
    return [await connect(table.pk, u) for u in users]


def test_snapshot_chat_leaves_out_blocked_senders_both_ways(rooms, people):
    alice, bob, carol = people["alice"], people["bob"], people["carol"]
    table = services.table_create(user=alice, room=rooms["classic"])
    services.chat_post(table_id=table.pk, user=carol, text="hello from carol")
    services.chat_post(table_id=table.pk, user=alice, text="hello from alice")
    services.chat_post(table_id=table.pk, user=bob, text="hello from bob")
    social_services.block_add(user=alice, target=carol)

    def texts(user):
        return [line["text"] for line in selectors.table_snapshot(table.pk, user, None)["chat"]]

    assert texts(alice) == ["hello from alice", "hello from bob"]
    assert texts(carol) == ["hello from carol", "hello from bob"]
    assert texts(bob) == ["hello from carol", "hello from alice", "hello from bob"]
    assert ChatMessage.objects.filter(table=table).count() == 3  # hidden, not deleted
    # The page's embedded snapshot is the same.
    client = Client()
    client.force_login(alice)
    page = client.get(table.get_absolute_url()).content.decode()
    assert "hello from carol" not in page and "hello from bob" in page


async def test_live_chat_from_a_blocked_user_never_reaches_the_blocker(rooms, people):
    alice, bob, carol = people["alice"], people["bob"], people["carol"]
    table = await database_sync_to_async(services.table_create)(
        user=alice, room=rooms["classic"])
    await database_sync_to_async(social_services.block_add)(user=alice, target=carol)
    a, b, c = await _connect_all(table, alice, bob, carol)
    try:
        for comm in (a, b, c):
            await recv(comm, "snapshot")
        await send(c, {"type": "chat", "text": "carol speaks"})
        # carol sees her own line (she is not told), bob sees it ...
        assert (await recv(c, "chat"))["message"]["text"] == "carol speaks"
        assert (await recv(b, "chat"))["message"]["text"] == "carol speaks"
        await send(b, {"type": "chat", "text": "bob speaks"})
        # ... and alice's next chat line is bob's: carol's was dropped for her.
        for comm in (a, b, c):
            assert (await recv(comm, "chat"))["message"]["text"] == "bob speaks"
        # Either way: carol does not see alice's line, bob does.
        await send(a, {"type": "chat", "text": "alice speaks"})
        for comm in (a, b):
            assert (await recv(comm, "chat"))["message"]["text"] == "alice speaks"
        await send(b, {"type": "chat", "text": "bob again"})
        for comm in (c, a, b):
            assert (await recv(comm, "chat"))["message"]["text"] == "bob again"
        # No frame carries the sender's id.
        await send(b, {"type": "chat", "text": "last"})
        frame = await recv(a, "chat")
        assert set(frame) == {"type", "message"} and "sender_id" not in json.dumps(frame)
    finally:
        for comm in (a, b, c):
            await comm.disconnect()


async def test_a_block_made_while_connected_applies_at_once(rooms, people):
    alice, bob, carol = people["alice"], people["bob"], people["carol"]
    table = await database_sync_to_async(services.table_create)(
        user=alice, room=rooms["classic"])
    a, b, c = await _connect_all(table, alice, bob, carol)
    try:
        for comm in (a, b, c):
            await recv(comm, "snapshot")
        await send(c, {"type": "chat", "text": "carol before"})
        for comm in (a, b, c):
            assert (await recv(comm, "chat"))["message"]["text"] == "carol before"
        # alice blocks carol (say, from carol's profile in another tab): both of them get a
        # fresh snapshot whose chat no longer holds the other's lines; bob gets nothing.
        await database_sync_to_async(social_services.block_add)(user=alice, target=carol)
        assert [m["text"] for m in (await recv(a, "snapshot"))["chat"]] == []
        assert [m["text"] for m in (await recv(c, "snapshot"))["chat"]] == ["carol before"]
        await send(c, {"type": "chat", "text": "carol blocked"})
        assert (await recv(c, "chat"))["message"]["text"] == "carol blocked"
        await send(b, {"type": "chat", "text": "bob speaks"})
        assert (await recv(a, "chat"))["message"]["text"] == "bob speaks"
        # Unblocking brings the lines back, and new ones arrive again.
        await database_sync_to_async(social_services.block_remove)(user=alice, target=carol)
        assert [m["text"] for m in (await recv(a, "snapshot"))["chat"]] == [
            "carol before", "carol blocked", "bob speaks"]
        await send(c, {"type": "chat", "text": "carol after"})
        assert (await recv(a, "chat"))["message"]["text"] == "carol after"
        # bob, who blocked nobody, was sent no snapshot along the way.
        kinds = []
        while not kinds or kinds[-1] != ("chat", "carol after"):
            frame = await recv(b)
            kinds.append((frame["type"], frame.get("message", {}).get("text")))
        assert "snapshot" not in {k for k, _ in kinds}
    finally:
        for comm in (a, b, c):
            await comm.disconnect()


# ------------------------------------------------------------------------- the registry


@pytest.fixture
def bare_registry(monkeypatch):
    """No registered hooks (as if ``social`` were not installed)."""
    monkeypatch.setattr(hooks, "_seat_checks", [])
    monkeypatch.setattr(hooks, "_hidden_senders", [])
    return hooks


def test_without_hooks_blocks_do_not_reach_tables(rooms, people, bare_registry):
    alice, carol = people["alice"], people["carol"]
    table = _private_table(rooms["classic"], alice)
    social_services.block_add(user=alice, target=carol)
    services.chat_post(table_id=table.pk, user=carol, text="still here")
    assert hooks.hidden_senders(alice) == frozenset()
    services.table_sit(table_id=table.pk, user=carol, invite=table.invite_token)
    chat = selectors.table_snapshot(table.pk, alice, 0)["chat"]
    assert [line["text"] for line in chat] == ["still here"]


def test_a_failing_seat_check_refuses_and_a_failing_chat_filter_hides_nothing(
    rooms, people, bare_registry
):
    alice, carol = people["alice"], people["carol"]

    def broken(*args):
        raise RuntimeError("down")

    hooks.register_seat_check(broken)
    hooks.register_seat_check(broken)  # registered once only
    hooks.register_hidden_senders(broken)
    assert hooks._seat_checks == [broken] and hooks._hidden_senders == [broken]
    table = _private_table(rooms["classic"], alice)
    with pytest.raises(TableNotFound):
        services.table_sit(table_id=table.pk, user=carol, invite=table.invite_token)
    assert hooks.hidden_senders(alice) == frozenset()
    hooks.unregister(broken)
    assert hooks._seat_checks == [] and hooks._hidden_senders == []


def test_seat_checks_see_the_people_at_the_table_but_not_the_newcomer(
    rooms, people, bare_registry
):
    alice, bob, carol = people["alice"], people["bob"], people["carol"]
    seen = []
    hooks.register_seat_check(lambda table, user, others: seen.append((user.pk, others)))
    table = _private_table(rooms["rummy-3-4"], alice, seats=3)
    services.table_sit(table_id=table.pk, user=bob, invite=table.invite_token)
    services.table_sit(table_id=table.pk, user=carol, invite=table.invite_token)
    assert seen == [(bob.pk, frozenset({alice.pk})), (carol.pk, frozenset({alice.pk, bob.pk}))]
    hidden = []
    hooks.register_hidden_senders(lambda user_id: hidden.append(user_id) or {user_id, bob.pk})
    assert hooks.hidden_senders(alice) == frozenset({bob.pk})  # never oneself
    assert hooks.hidden_senders(None) == frozenset() and hidden == [alice.pk]


def test_the_rooms_online_list_leaves_out_blocks_both_ways(rooms, people):
    """A room lists who is there to everyone in it, but not someone you blocked, nor someone
    who blocked you (an outside audit saw a blocked player read 'carol is here')."""
    carol, dave, alice = people["carol"], people["dave"], people["alice"]
    social_services.block_add(user=carol, target=dave)
    cache.delete("games:room-online:classic")  # (who an earlier test showed in the room)
    clients = {}
    for user in (carol, dave, alice):
        clients[user.username] = Client()
        clients[user.username].force_login(user)
        clients[user.username].get("/play/classic/tables.json")  # seen in the room

    def online(name):
        data = clients[name].get("/play/classic/tables.json").json()
        assert data["online_count"] == len(data["online"])
        return {p["username"] for p in data["online"]}

    assert online("dave") == {"alice", "dave"}
    assert online("carol") == {"alice", "carol"}
    assert online("alice") == {"alice", "carol", "dave"}
    assert {p["username"] for p in Client().get("/play/classic/tables.json").json()["online"]} \
        == {"alice", "carol", "dave"}
    # the lobby's counts agree with the room's list: a count that took in the people hidden
    # from you told a blocked person that someone in the room was (an outside audit: "2
    # online" above a list of one)
    for name, seen in (("dave", 2), ("carol", 2), ("alice", 3)):
        answer = clients[name].get("/play/rooms.json").json()["rooms"]
        assert next(r for r in answer if r["slug"] == "classic")["online"] == seen
        page = clients[name].get("/play/").content.decode()
        assert f'<span class="js-online">{seen}</span> online' in page, name
    assert next(r for r in Client().get("/play/rooms.json").json()["rooms"]
                if r["slug"] == "classic")["online"] == 3
