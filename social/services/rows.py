"""Invitations and challenges are answered the same way: the asking user's own pending row,
locked, then its answer stored (the frames are each service's own)."""
from __future__ import annotations

from typing import Any

from django.utils import timezone

from .errors import NotFound, SocialError


def pending_row(model: Any, object_id: int, noun: str, **owner: Any) -> Any:
    """The row ``object_id`` of ``model`` (an invitation, a challenge) among the asking user's
    own (``owner``: ``to_user=`` or ``from_user=``), locked for the answer, with both users:
    :class:`NotFound` when there is none (someone else's reads the same), ``answered`` when it
    is no longer pending."""
    rows = model.objects.select_related("from_user", "to_user").filter(**owner)
    try:
        row = rows.select_for_update().get(pk=object_id)
    except (model.DoesNotExist, ValueError, TypeError):
        raise NotFound(f"This {noun} does not exist.") from None
    if row.status != "pending":
        raise SocialError(
            f"This {noun} was already {row.get_status_display().lower()}.", "answered"
        )
    return row


def answered(row: Any, status: str, *fields: str) -> None:
    """Store the answer to a pending row (and the other ``fields`` changed with it)."""
    row.status = status
    row.responded_at = timezone.now()
    row.save(update_fields=["status", "responded_at", *fields])
