"""Fixtures of the games tests: the default rooms (transactional tests flush the data
migration's rows), two players and a seeded random generator (the helpers that build and
drive tables are in tests/support/tables.py)."""
from __future__ import annotations

import random

import pytest

from games.models import Room
from games.rooms import ensure_default_rooms


@pytest.fixture
def rooms(db):
    ensure_default_rooms(Room)
    return {r.slug: r for r in Room.objects.all()}


@pytest.fixture
def two_players(make_user):
    return make_user("alice"), make_user("bob")


@pytest.fixture
def rng():
    return random.Random(7)
