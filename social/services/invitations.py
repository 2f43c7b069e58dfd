"""Invitations to a table: send one to a contact, accept (a seat through games), decline,
cancel. The table is read and the invitee seated through :mod:`social.tables`."""
from __future__ import annotations

from typing import TYPE_CHECKING

from django.db import transaction
from django.utils import timezone

from .. import conf, frames, policy, tables
from ..models import Invitation, InvitationStatus
from .errors import NotFound, SocialError, policy_check
from .publish import notify_after_commit
from .rows import answered, pending_row

if TYPE_CHECKING:
    from accounts.models import User


def _invitation_expired(invitation: Invitation) -> bool:
    age = (timezone.now() - invitation.created_at).total_seconds()
    ttl: float = conf.get("INVITE_TTL")
    return age > ttl


def invitation_send(*, sender: User, recipient: User, table_id: int) -> Invitation:
    """Invite a contact to a table where ``sender`` is seated and a seat is free."""
    info = tables.table_get(table_id)
    if info is None or sender.pk not in info.seated_user_ids:
        raise NotFound("You can only invite people to a table where you are seated.")
    if not info.open:
        raise SocialError("This game has already started or is over.", "table_closed")
    if info.free_seats <= 0:
        raise SocialError("This table has no free seat.", "table_full")
    if recipient.pk in info.seated_user_ids:
        raise SocialError(f"{recipient.public_name} is already at this table.", "already_seated")
    existing = Invitation.objects.filter(
        from_user=sender, to_user=recipient, table_id=table_id, status=InvitationStatus.PENDING
    ).first()
    if existing and not _invitation_expired(existing):
        return existing
    policy_check(policy.can_invite(sender, recipient, hit=True))
    with transaction.atomic():
        if existing:
            Invitation.objects.filter(pk=existing.pk).update(
                status=InvitationStatus.EXPIRED, responded_at=timezone.now()
            )
        invitation = Invitation.objects.create(
            from_user=sender, to_user=recipient, table_id=table_id
        )
        notify_after_commit([recipient.pk], frames.invitation_event("received", invitation, info))
        notify_after_commit([sender.pk], frames.invitation_event("sent", invitation, info))
    return invitation


def invitation_send_new_table(*, sender: User, recipient: User, mode: str, seat_count: int = 2,
                              target: int | None = None, rated: bool = False,
                              seconds_per_turn: int = 30, private: bool = True) -> Invitation:
    """Open a table of ``mode`` with ``sender`` seated and invite ``recipient`` to it: one
    step from a contact's "Invite" when ``sender`` has no table waiting. Both or neither:
    a refused invitation (not a contact, blocked, too many) opens no table, and a table the
    games app refuses (settings, a playban, too many waiting) sends no invitation."""
    policy_check(policy.can_invite(sender, recipient))
    with transaction.atomic():
        try:
            table_id = tables.table_open(user=sender, mode=mode, seat_count=seat_count,
                                         target=target, rated=rated,
                                         seconds_per_turn=seconds_per_turn, private=private)
        except tables.TableUnavailable as exc:
            raise SocialError(str(exc), "table_unavailable") from exc
        return invitation_send(sender=sender, recipient=recipient, table_id=table_id)


def _pending_invitation(invitation_id: int, **owner: User) -> Invitation:
    invitation: Invitation = pending_row(Invitation, invitation_id, "invitation", **owner)
    return invitation


def _invitation_close(invitation: Invitation, status: str) -> None:
    answered(invitation, status)
    frame = frames.invitation_event(status, invitation, tables.table_get(invitation.table_id))
    notify_after_commit([invitation.from_user_id, invitation.to_user_id], frame)


def invitation_accept(*, user: User, invitation_id: int) -> str:
    """Accept: seat ``user`` at the table (through the games service); returns its URL.

    An invitation that can no longer be honoured (expired, the table full or started, a block
    since) is closed and the reason raised as :class:`SocialError`.
    """
    error: SocialError | None = None
    with transaction.atomic():
        invitation = _pending_invitation(invitation_id, to_user=user)
        if policy.is_blocked_either_way(invitation.from_user_id, user.pk):
            _invitation_close(invitation, InvitationStatus.CANCELLED)
            error = NotFound("This invitation does not exist.")
        elif _invitation_expired(invitation):
            _invitation_close(invitation, InvitationStatus.EXPIRED)
            error = SocialError("This invitation has expired.", "expired")
        elif busy := tables.busy_reason(user):  # (it stays: to accept after the match)
            error = SocialError(busy, "busy")
        else:
            try:
                url = tables.table_seat(user=user, table_id=invitation.table_id)
            except tables.TableUnavailable as exc:
                _invitation_close(invitation, InvitationStatus.EXPIRED)
                error = SocialError(str(exc), "table_unavailable")
            else:
                _invitation_close(invitation, InvitationStatus.ACCEPTED)
    if error is not None:
        raise error
    return url


def invitation_decline(*, user: User, invitation_id: int) -> None:
    with transaction.atomic():
        invitation = _pending_invitation(invitation_id, to_user=user)
        _invitation_close(invitation, InvitationStatus.DECLINED)


def invitation_cancel(*, user: User, invitation_id: int) -> None:
    with transaction.atomic():
        invitation = _pending_invitation(invitation_id, from_user=user)
        _invitation_close(invitation, InvitationStatus.CANCELLED)
