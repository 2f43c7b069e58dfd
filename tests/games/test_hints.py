"""Hints: at a casual table against the computer, the player whose turn it is may ask what the
Hard computer would play in their place. The hint is thought from the seat's view only (cards
the seat cannot see change nothing), changes nothing at the table, and is refused against a
person, at a rated table, to a spectator and out of turn."""
from __future__ import annotations

import pytest

from games import engine as E
from games import seat_rules, services, states
from games.exceptions import NoHint, NotPlaying, NotSeated, NotYourTurn
from games.models import Table, TableAction, TableStatus
from tests.support.sockets import connect, recv, send
from tests.support.tables import start_table


def _my_turn(table_id: int) -> Table:
    """Let the computer move until it is seat 0's turn (the computer may deal first)."""
    for _ in range(10):
        table = Table.objects.get(pk=table_id)
        if states.load(table.state).to_act == 0:
            return table
        services.table_bot_move(table_id=table_id, version=table.version)
    pytest.fail("the computer never gave seat 0 the turn")


@pytest.fixture
def computer_table(rooms, two_players):
    alice, _bob = two_players
    return _my_turn(services.play_computer(user=alice, mode="classic", level=1).pk)


def test_a_hint_is_a_legal_move_that_changes_nothing(computer_table, two_players):
    alice, _bob = two_players
    table = computer_table
    actions_before = TableAction.objects.filter(table=table).count()
    hint = services.table_hint(table_id=table.pk, user=alice)
    again = services.table_hint(table_id=table.pk, user=alice)
    assert hint == again  # asked twice, the same answer
    state = states.load(table.state)
    assert hint["version"] == table.version
    assert hint["action"] in {str(a) for a in E.legal_actions(state)}
    after = Table.objects.get(pk=table.pk)
    assert (after.version, after.state) == (table.version, table.state)
    assert TableAction.objects.filter(table=table).count() == actions_before


def test_a_hint_knows_only_what_the_seat_sees(computer_table, two_players):
    """The opponent's concealed cards and the stock, rearranged in every way that leaves the
    seat's view the same, give the same hint on every move of a hand."""
    alice, _bob = two_players
    table = computer_table
    for _ in range(6):
        state = states.load(table.state)
        hint = services.table_hint(table_id=table.pk, user=alice)["action"]
        data = states.dump(state)
        seen = E.view_for(state, 0)
        concealed = [c for c in data["hands"][1] if c not in data["known"][1]]
        unseen = concealed + list(data["stock"])
        for shift in (1, 7):  # two other deals of the cards seat 0 cannot see
            moved = unseen[shift:] + unseen[:shift]
            other = dict(data, hands=[data["hands"][0], moved[:len(concealed)]
                                      + [c for c in data["hands"][1] if c in data["known"][1]]],
                         stock=moved[len(concealed):])
            assert E.view_for(states.load(other), 0) == seen
            Table.objects.filter(pk=table.pk).update(state=other)
            assert services.table_hint(table_id=table.pk, user=alice)["action"] == hint
        Table.objects.filter(pk=table.pk).update(state=data)
        services.table_act(table_id=table.pk, user=alice, action=hint,
                           expected_version=table.version)
        table = _my_turn(table.pk)
        if table.status != TableStatus.PLAYING:
            break


def test_hints_are_refused_against_a_person_rated_out_of_turn_and_to_others(
        computer_table, rooms, two_players, make_user):
    alice, bob = two_players
    with pytest.raises(NotSeated):
        services.table_hint(table_id=computer_table.pk, user=make_user("cleo"))
    Table.objects.filter(pk=computer_table.pk).update(rated=True)
    with pytest.raises(NoHint):
        services.table_hint(table_id=computer_table.pk, user=alice)
    people = start_table(rooms["classic"], [alice, bob])
    to_act = states.load(people.state).to_act
    with pytest.raises(NoHint):
        services.table_hint(table_id=people.pk, user=[alice, bob][to_act])
    Table.objects.filter(pk=computer_table.pk).update(rated=False)
    state = states.load(computer_table.state)
    services.table_act(table_id=computer_table.pk, user=alice,
                       action=str(E.legal_actions(state)[0]),
                       expected_version=computer_table.version)
    table = Table.objects.get(pk=computer_table.pk)
    if states.load(table.state).to_act != 0:
        with pytest.raises(NotYourTurn):
            services.table_hint(table_id=table.pk, user=alice)
    Table.objects.filter(pk=table.pk).update(status=TableStatus.FINISHED)
    with pytest.raises(NotPlaying):
        services.table_hint(table_id=table.pk, user=alice)


def test_the_frame_says_who_may_ask():
    bots = [False, True]
    assert seat_rules.hints_allowed(rated=False, bot_seats=bots, seat=0)
    assert not seat_rules.hints_allowed(rated=True, bot_seats=bots, seat=0)
    assert not seat_rules.hints_allowed(rated=False, bot_seats=[False, False], seat=0)
    assert not seat_rules.hints_allowed(rated=False, bot_seats=bots, seat=None)
    assert seat_rules.hints_allowed(rated=False, bot_seats=[True, False, True, True], seat=1)


async def _ask(table_id, user, message_id):
    """Open a socket as ``user``, ask for a hint: (the snapshot, the answer frame)."""
    comm = await connect(table_id, user)
    try:
        snap = await recv(comm, "snapshot")
        await send(comm, {"type": "hint", "id": message_id})
        while True:  # (a presence frame may come first)
            answer = await recv(comm)
            if answer["type"] in ("hint", "error"):
                return snap, answer
    finally:
        await comm.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_the_socket_answers_a_hint_to_the_player_only(rooms, two_players, make_user):
    from channels.db import database_sync_to_async

    alice, _bob = two_players
    table = await database_sync_to_async(
        lambda: _my_turn(services.play_computer(user=alice, mode="classic", level=1).pk))()
    snap, hint = await _ask(table.pk, alice, "h1")
    assert snap["you"]["can_hint"] is True
    assert hint["type"] == "hint" and hint["id"] == "h1" and hint["version"] == snap["version"]
    assert hint["action"] in snap["view"]["legal_actions"]
    watcher = await database_sync_to_async(make_user)("dora")
    snap, error = await _ask(table.pk, watcher, "h2")
    assert snap["you"]["can_hint"] is False
    assert error["type"] == "error" and error["code"] == "not_seated" and error["id"] == "h2"
