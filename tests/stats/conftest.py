"""Helpers of the statistics tests: store finished games the way games.services does."""
from __future__ import annotations

import pytest


@pytest.fixture
def people(make_user):
    return [make_user(name) for name in ("ann", "bob", "cat", "dan")]
