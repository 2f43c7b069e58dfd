"""Fixtures of the games tests: the default rooms (transactional tests flush the data
migration's rows) and helpers to build and drive tables through the services."""
from __future__ import annotations

import random

import pytest

from games import play, services
from games.models import Room, Table
from games.rooms import ensure_default_rooms


@pytest.fixture
def rooms(db):
    ensure_default_rooms(Room)
    return {r.slug: r for r in Room.objects.all()}


@pytest.fixture
def two_players(make_user):
    return make_user("alice"), make_user("bob")


def start_table(room, users, *, seconds=30, target=None, seats=None):
    """A started table with ``users`` seated in order (through the services)."""
    table = services.table_create(
        user=users[0], room=room, seat_count=seats or len(users), seconds_per_turn=seconds,
        target=target,
    )
    for u in users[1:]:
        services.table_sit(table_id=table.pk, user=u)
    return Table.objects.get(pk=table.pk)


def state_of(table_id):
    return play.load(Table.objects.get(pk=table_id).state)


def play_one(table_id, users_by_seat, rng=None):
    """The seat to act plays a legal move (random with ``rng``, else the safe move)."""
    table = Table.objects.get(pk=table_id)
    state = play.load(table.state)
    seat = state.to_act
    if rng is None:
        text = play.safe_action(state)
    else:
        from games import engine as E

        text = str(rng.choice(E.legal_actions(state)))
    return services.table_act(
        table_id=table_id, user=users_by_seat[seat], action=text,
        expected_version=table.version,
    )


@pytest.fixture
def rng():
    return random.Random(7)


@pytest.fixture(autouse=True)
def fresh_channel_layer():
    """Each test (and its event loop) gets a new channel layer: the Redis layer binds its
    locks and connections to the loop that first used it."""
    from channels.layers import channel_layers

    channel_layers.backends = {}
    yield
    channel_layers.backends = {}
