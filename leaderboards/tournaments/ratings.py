"""What tournaments need from ratings: one place that asks ``leaderboards.selectors``.

``ratings_for(user_ids, mode) -> {user_id: rating}`` seeds entrants and checks rating limits;
``playban_until(user) -> datetime | None`` keeps playbanned players out.
"""
from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from leaderboards import selectors


def ratings_for(user_ids: Iterable[int], mode: str) -> dict[int, int]:
    ids = list(user_ids)
    found = selectors.ratings_for(ids, mode) if ids else {}
    return {uid: int(found[uid]) for uid in ids if uid in found}


def playban_until(user) -> datetime | None:
    return selectors.playban_until(user)
