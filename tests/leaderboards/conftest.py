"""Fixtures of the ratings tests: the default rooms (for tests that go through live play)."""
from __future__ import annotations

import pytest

from games.models import Room
from games.rooms import ensure_default_rooms


@pytest.fixture
def rooms(db):
    ensure_default_rooms(Room)
    return {r.slug: r for r in Room.objects.all()}
