"""The errors every social service raises, and the one policy check before a write."""
from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from .. import policy


class SocialError(Exception):
    """A request the user may not make or that makes no sense; ``str()`` is user-facing."""

    code = "invalid"

    def __init__(self, message: str, code: str | None = None):
        super().__init__(message)
        if code:
            self.code = code


class NotFound(SocialError):
    """The object does not exist *for this user* (someone else's is reported the same way)."""

    code = "not_found"


class PolicyDenied(SocialError):
    def __init__(self, verdict: policy.Verdict):
        super().__init__(verdict.message, verdict.public_code)
        self.verdict = verdict


def policy_check(verdict: policy.Verdict) -> None:
    """Raise :class:`PolicyDenied` with ``verdict`` when it refuses."""
    if not verdict:
        raise PolicyDenied(verdict)


def pending_row(rows: QuerySet[Any], object_id: int, noun: str) -> Any:
    """The row ``object_id`` among ``rows`` (already narrowed to the asking user's own), locked
    for the answer: :class:`NotFound` when there is none (someone else's reads the same),
    ``answered`` when it is no longer pending (an invitation, a challenge)."""
    try:
        row = rows.select_for_update().get(pk=object_id)
    except (rows.model.DoesNotExist, ValueError, TypeError):
        raise NotFound(f"This {noun} does not exist.") from None
    if row.status != "pending":
        raise SocialError(
            f"This {noun} was already {row.get_status_display().lower()}.", "answered"
        )
    return row
