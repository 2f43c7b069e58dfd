"""Private messages: send one, mark a conversation read, delete it for oneself."""
from __future__ import annotations

from typing import TYPE_CHECKING

from django.db import IntegrityError, transaction
from django.db.models import Q

from core.text import CONTROLS_MESSAGE, has_controls, shows_something
from core.types import Frame

from .. import frames, policy, selectors
from ..models import MESSAGE_MAX_LENGTH, Conversation, ConversationMember, Message
from ..notify import notify_many, notify_users
from .errors import NotFound, SocialError, policy_check

if TYPE_CHECKING:
    from accounts.models import User


def _conversation_ensure(sender: User, recipient: User) -> Conversation:
    """The pair's conversation with both memberships, created on the first message."""
    low, high = sorted((sender.pk, recipient.pk))
    conversation = Conversation.objects.filter(user_low_id=low, user_high_id=high).first()
    if conversation is not None:
        return conversation
    try:
        with transaction.atomic():
            conversation = Conversation.objects.create(user_low_id=low, user_high_id=high)
            ConversationMember.objects.bulk_create(
                [
                    ConversationMember(conversation=conversation, user=sender, other=recipient),
                    ConversationMember(conversation=conversation, user=recipient, other=sender),
                ]
            )
    except IntegrityError:  # both sides wrote the first message at the same moment
        conversation = Conversation.objects.get(user_low_id=low, user_high_id=high)
    return conversation


def _clean_body(body: object) -> str:
    if not isinstance(body, str):
        raise SocialError("A message must be text.", "invalid")
    body = body.replace("\r\n", "\n").strip()
    if not shows_something(body):
        raise SocialError("Write a message first.", "empty")
    if has_controls(body, allow="\n\t"):
        raise SocialError(CONTROLS_MESSAGE, "control_characters")
    if len(body) > MESSAGE_MAX_LENGTH:
        raise SocialError(
            f"A message can be at most {MESSAGE_MAX_LENGTH:,} characters "
            f"(this one has {len(body):,}).",
            "too_long",
        )
    return body


def _unread_counts(user_id: int, conversation_id: int) -> Frame:
    total, count = selectors.unread_counts(user_id, conversation_id)
    return frames.unread_counts(total, conversation_id, count)


def message_recipient(user_id: int) -> User:
    """The active user ``user_id`` to send a message to (the socket's ``send`` names the
    recipient by id); :class:`NotFound` otherwise."""
    from django.contrib.auth import get_user_model

    recipient = (
        get_user_model().objects.filter(pk=user_id, is_active=True)
        .only("id", "username", "display_name", "is_active", "date_joined")
        .first()
    )
    if recipient is None:
        raise NotFound("This user does not exist.")
    return recipient


def message_send(*, sender: User, recipient: User, body: object) -> Message:
    """Send a private message; it reaches every open tab of both participants."""
    body = _clean_body(body)
    policy_check(policy.can_message(sender, recipient, hit=True))
    with transaction.atomic():
        conversation = _conversation_ensure(sender, recipient)
        message = Message.objects.create(conversation=conversation, sender=sender, body=body)
        Conversation.objects.filter(pk=conversation.pk).filter(
            Q(last_message__isnull=True) | Q(last_message_id__lt=message.pk)
        ).update(last_message=message)
        # Answering a conversation means you have read it.
        # (Only when there was something unread: your own messages never count.)
        previous = conversation.last_message_id or 0
        sender_read = previous and ConversationMember.objects.filter(
            conversation=conversation, user=sender, last_read_id__lt=previous
        ).update(last_read_id=message.pk)
        frame = frames.message_frame(message, sender)
        conv_id = conversation.pk

        def deliver() -> None:
            theirs = frames.message_event(frame, mine=False, with_user=sender,
                                          unread=_unread_counts(recipient.pk, conv_id))
            # The reply marked the conversation read for the sender: their counts changed.
            mine = frames.message_event(
                frame, mine=True, with_user=recipient,
                unread=_unread_counts(sender.pk, conv_id) if sender_read else None,
            )
            notify_many([([recipient.pk], theirs), ([sender.pk], mine)])

        transaction.on_commit(deliver)
    return message


def _unread_frame(user_id: int, conversation_id: int, *, deleted: bool = False) -> Frame:
    total, count = selectors.unread_counts(user_id, conversation_id)
    return frames.unread(total, conversation_id, count, deleted=deleted)


def conversation_mark_read(
    *, user: User, conversation_id: int, up_to: int | None = None
) -> int:
    """Mark the conversation read (up to message ``up_to``, default all); returns the new
    unread total of ``user``. Only participants may: others get :class:`NotFound`."""
    with transaction.atomic():
        try:
            member = ConversationMember.objects.select_related("conversation").get(
                conversation_id=conversation_id, user=user
            )
        except (ConversationMember.DoesNotExist, ValueError, TypeError):
            raise NotFound("This conversation does not exist.") from None
        latest = member.conversation.last_message_id or 0
        target = latest if up_to is None else min(int(up_to), latest)
        changed = ConversationMember.objects.filter(
            pk=member.pk, last_read_id__lt=target
        ).update(last_read_id=target)
        if changed:
            uid, cid = user.pk, member.conversation_id
            transaction.on_commit(lambda: notify_users([uid], _unread_frame(uid, cid)))
    return selectors.unread_total(user.pk)


def conversation_delete(*, user: User, conversation_id: int) -> None:
    """Hide the conversation's messages so far from ``user`` only; the other participant
    keeps them. A later message shows the conversation again, from that message on."""
    with transaction.atomic():
        try:
            member = ConversationMember.objects.select_for_update().select_related(
                "conversation"
            ).get(conversation_id=conversation_id, user=user)
        except (ConversationMember.DoesNotExist, ValueError, TypeError):
            raise NotFound("This conversation does not exist.") from None
        latest = member.conversation.last_message_id or 0
        member.deleted_up_to = max(member.deleted_up_to, latest)
        member.last_read_id = max(member.last_read_id, latest)
        member.save(update_fields=["deleted_up_to", "last_read_id"])
        uid, cid = user.pk, member.conversation_id
        transaction.on_commit(
            lambda: notify_users([uid], _unread_frame(uid, cid, deleted=True))
        )
