"""Notices to players on the notification socket, sent after the commit (best effort: the
page shows the truth). The frames themselves are built in ``tournaments.frames``."""
from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from django.db import transaction

log = logging.getLogger(__name__)


def notify_after_commit(user_ids: Iterable[int | None], frame: dict[str, Any]) -> None:
    ids = [u for u in user_ids if u is not None]
    if not ids:
        return

    def send() -> None:
        from social.notify import notify_users

        try:
            notify_users(ids, frame)
        except Exception:  # notices are best effort; the page shows the truth
            log.exception("tournament notice failed")

    transaction.on_commit(send)
