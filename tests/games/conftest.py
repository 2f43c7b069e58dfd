"""Fixtures of the games tests: the default rooms (transactional tests flush the data
migration's rows), two players and a seeded random generator (the helpers that build and
drive tables are in tests/support/tables.py)."""
from __future__ import annotations

import random

import pytest

from core import channels as core_channels
from games.models import Room
from games.rooms import ensure_default_rooms
from games.services import analysis as analysis_service


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


@pytest.fixture
def frames(monkeypatch):
    """Every notification frame the analysis sends, by user id."""
    sent: dict[int, list[dict]] = {}

    def record(messages):
        for group, message in messages:
            assert group.startswith("user.") and message["type"] == "notify.frame"
            sent.setdefault(int(group.split(".")[1]), []).append(message["frame"])
        return True

    monkeypatch.setattr(core_channels, "send_now", record)
    monkeypatch.setattr(analysis_service, "send_now", record)
    return sent


@pytest.fixture
def people(make_user):
    return make_user("ann"), make_user("bob"), make_user("cleo")
