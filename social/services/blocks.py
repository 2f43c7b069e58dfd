"""Blocking someone, unblocking, and who may message you (the privacy page's writes)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from .. import frames
from ..models import (
    Block,
    Contact,
    ContactRequest,
    ConversationMember,
    Invitation,
    InvitationStatus,
    MessagePolicy,
    SocialSettings,
)
from .errors import NotFound, SocialError
from .messages import conversation_mark_read
from .publish import notify_after_commit

if TYPE_CHECKING:
    from accounts.models import User


def block_add(*, user: User, target: User) -> Block:
    """Block ``target``: also ends the contact, pending requests and invitations both ways.

    ``target`` is not told: their pages stop showing ``user`` as a contact, live, with the
    very frames of a plain Remove (and of a request withdrawn or declined), so a block reads
    like one of those (their open Contacts page kept ``user`` listed, online, with Message).
    """
    if user.pk == target.pk:
        raise SocialError("You cannot block yourself.", "self")
    with transaction.atomic():
        block, _ = Block.objects.get_or_create(blocker=user, blocked=target)
        was_contact, _ = Contact.objects.filter(
            Q(user=user, contact=target) | Q(user=target, contact=user)
        ).delete()
        requests = list(
            ContactRequest.objects.filter(
                Q(from_user=user, to_user=target) | Q(from_user=target, to_user=user)
            ).values_list("id", flat=True)
        )
        ContactRequest.objects.filter(id__in=requests).delete()
        Invitation.objects.filter(
            Q(from_user=user, to_user=target) | Q(from_user=target, to_user=user),
            status=InvitationStatus.PENDING,
        ).update(status=InvitationStatus.CANCELLED, responded_at=timezone.now())
        if was_contact:
            notify_after_commit([user.pk], frames.contact_removed(target))
            notify_after_commit([target.pk], frames.contact_removed(user))
        for rid in requests:
            notify_after_commit([user.pk, target.pk], frames.contact_request_removed(rid))
        # what they sent before the block is read: it no longer counts in the badge (it
        # counted until the conversation was opened)
        chat = (ConversationMember.objects.filter(user=user, other=target)
                .values_list("conversation_id", flat=True).first())
        if chat is not None:
            conversation_mark_read(user=user, conversation_id=chat)
    return block


def block_remove(*, user: User, target: User) -> None:
    deleted, _ = Block.objects.filter(blocker=user, blocked=target).delete()
    if not deleted:
        raise NotFound("You are not blocking this person.")


def message_policy_set(*, user: User, policy: str) -> SocialSettings:
    if policy not in MessagePolicy.values:
        raise SocialError("Choose who may message you: everyone, contacts or nobody.")
    settings, _ = SocialSettings.objects.update_or_create(
        user=user, defaults={"message_policy": policy}
    )
    return settings
