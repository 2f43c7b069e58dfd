"""Frames to users' notification sockets, sent only once the current transaction commits."""
from __future__ import annotations

from collections.abc import Iterable

from django.db import transaction

from core.types import Frame

from ..notify import notify_users


def notify_after_commit(user_ids: Iterable[int], frame: Frame) -> None:
    """Send ``frame`` to every open tab of ``user_ids`` after the commit (at once outside a
    transaction); a rolled-back write sends nothing."""
    ids = list(user_ids)
    transaction.on_commit(lambda: notify_users(ids, frame))
