"""Frames to users' notification sockets, sent only once the current transaction commits."""
from __future__ import annotations

from django.db import transaction

from ..notify import notify_users


def notify_after_commit(user_ids, frame: dict) -> None:
    """Send ``frame`` to every open tab of ``user_ids`` after the commit (at once outside a
    transaction); a rolled-back write sends nothing."""
    ids = list(user_ids)
    transaction.on_commit(lambda: notify_users(ids, frame))
