"""Fixtures of the ratings tests: the default rooms (for tests that go through live play) and
a tournament organiser (staff)."""
from __future__ import annotations

import pytest

from games.models import Room
from games.rooms import ensure_default_rooms


@pytest.fixture
def rooms(db):
    ensure_default_rooms(Room)
    return {r.slug: r for r in Room.objects.all()}


@pytest.fixture
def staff(make_user):
    return make_user("organiser", is_staff=True)
