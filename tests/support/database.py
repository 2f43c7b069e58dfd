"""The test databases' own upkeep."""
from __future__ import annotations

import importlib


def restore_migration_rows(sender, **kwargs):
    """The rows the data migrations made (the game rooms, the default tournament schedules),
    back after each transactional test's flush, as Django's own (sites, content types) come
    back: the flush sends ``post_migrate``. Without this, a test that needs a room failed
    ("There is no such game") or passed by the order the tests ran in, whenever a
    transactional test had run before it in the same process (as pytest-xdist orders them)."""
    if sender.label == "games":
        from games.models import Room
        from games.rooms import ensure_default_rooms

        ensure_default_rooms(Room)
    elif sender.label == "tournaments":
        from django.apps import apps

        schedules = importlib.import_module(
            "leaderboards.tournaments.migrations.0002_default_schedules")
        schedules.create(apps, None)
