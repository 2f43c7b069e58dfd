"""Writes of the social app: each function is one transaction, and the live notifications it
causes are sent only after that transaction commits.

Every function that lets one user reach another asks :mod:`social.policy` first and raises
:class:`PolicyDenied` with the verdict when refused; a refused call stores nothing.
"""
from __future__ import annotations

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from . import conf, policy, selectors, tables
from .models import (
    MESSAGE_MAX_LENGTH,
    Block,
    Contact,
    ContactRequest,
    Conversation,
    ConversationMember,
    Invitation,
    InvitationStatus,
    Message,
    MessagePolicy,
    SocialSettings,
)
from .notify import notify_many, notify_users, user_ref
from .presence import presence_of


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


def _after_commit(user_ids, frame: dict) -> None:
    ids = list(user_ids)
    transaction.on_commit(lambda: notify_users(ids, frame))


def _check(verdict: policy.Verdict) -> None:
    if not verdict:
        raise PolicyDenied(verdict)


# --- Contact requests -----------------------------------------------------------------------

def _contact_pair_create(a, b) -> None:
    Contact.objects.get_or_create(user=a, contact=b)
    Contact.objects.get_or_create(user=b, contact=a)


def _contact_added_frames(a, b) -> None:
    presence = presence_of([a.pk, b.pk])
    for me, other in ((a, b), (b, a)):
        frame = {
            "type": "contact",
            "event": "added",
            "user": user_ref(other),
            **presence[other.pk].as_frame(),
        }
        _after_commit([me.pk], frame)


def contact_request_send(*, sender, recipient) -> ContactRequest | None:
    """Ask ``recipient`` to become a contact of ``sender``.

    If ``recipient`` had already asked ``sender``, this accepts that request instead and
    returns None. Sending the same request twice is harmless.
    """
    if Contact.objects.filter(user=sender, contact=recipient).exists():
        raise SocialError("You are already contacts.", "already_contacts")
    existing = ContactRequest.objects.filter(from_user=sender, to_user=recipient).first()
    if existing:
        return existing
    _check(policy.can_request(sender, recipient, hit=True))
    with transaction.atomic():
        reverse = (
            ContactRequest.objects.select_for_update()
            .filter(from_user=recipient, to_user=sender)
            .first()
        )
        if reverse is not None:
            reverse.delete()
            _contact_pair_create(sender, recipient)
            _contact_added_frames(sender, recipient)
            return None
        try:
            with transaction.atomic():
                request = ContactRequest.objects.create(from_user=sender, to_user=recipient)
        except IntegrityError:  # the same request sent twice at once
            return ContactRequest.objects.get(from_user=sender, to_user=recipient)
        frame = {
            "type": "contact_request",
            "event": "received",
            "request": {"id": request.pk, "user": user_ref(sender)},
        }
        _after_commit([recipient.pk], frame)
        _after_commit(
            [sender.pk],
            {"type": "contact_request", "event": "sent",
             "request": {"id": request.pk, "user": user_ref(recipient)}},
        )
    return request


def _request_for(user, request_id, *, incoming: bool) -> ContactRequest:
    field = "to_user" if incoming else "from_user"
    try:
        return (
            ContactRequest.objects.select_for_update()
            .select_related("from_user", "to_user")
            .get(pk=request_id, **{field: user})
        )
    except (ContactRequest.DoesNotExist, ValueError, TypeError):
        raise NotFound("This contact request does not exist any more.") from None


def contact_request_accept(*, user, request_id) -> None:
    with transaction.atomic():
        request = _request_for(user, request_id, incoming=True)
        other = request.from_user
        request.delete()
        if policy.is_blocked_either_way(user.pk, other.pk):
            return
        _contact_pair_create(user, other)
        _contact_added_frames(user, other)
        _after_commit(
            [user.pk],
            {"type": "contact_request", "event": "removed", "request": {"id": int(request_id)}},
        )


def contact_request_decline(*, user, request_id) -> None:
    with transaction.atomic():
        request = _request_for(user, request_id, incoming=True)
        request.delete()
        _after_commit(
            [user.pk],
            {"type": "contact_request", "event": "removed", "request": {"id": int(request_id)}},
        )


def contact_request_cancel(*, user, request_id) -> None:
    with transaction.atomic():
        request = _request_for(user, request_id, incoming=False)
        request.delete()
        _after_commit(
            [request.to_user_id, user.pk],
            {"type": "contact_request", "event": "removed", "request": {"id": int(request_id)}},
        )


def contact_remove(*, user, other) -> None:
    with transaction.atomic():
        deleted, _ = Contact.objects.filter(
            Q(user=user, contact=other) | Q(user=other, contact=user)
        ).delete()
        if not deleted:
            raise NotFound("This person is not one of your contacts.")
        _after_commit([user.pk], {"type": "contact", "event": "removed", "user": user_ref(other)})
        _after_commit([other.pk], {"type": "contact", "event": "removed", "user": user_ref(user)})


# --- Blocking and preferences ---------------------------------------------------------------

def block_add(*, user, target) -> Block:
    """Block ``target``: also ends the contact, pending requests and invitations both ways.

    ``target`` is not told; their pages simply stop showing ``user`` as a contact.
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
            _after_commit(
                [user.pk], {"type": "contact", "event": "removed", "user": user_ref(target)}
            )
        for rid in requests:
            _after_commit(
                [user.pk], {"type": "contact_request", "event": "removed", "request": {"id": rid}}
            )
    return block


def block_remove(*, user, target) -> None:
    deleted, _ = Block.objects.filter(blocker=user, blocked=target).delete()
    if not deleted:
        raise NotFound("You are not blocking this person.")


def message_policy_set(*, user, policy: str) -> SocialSettings:
    if policy not in MessagePolicy.values:
        raise SocialError("Choose who may message you: everyone, contacts or nobody.")
    settings, _ = SocialSettings.objects.update_or_create(
        user=user, defaults={"message_policy": policy}
    )
    return settings


# --- Messages ----------------------------------------------------------------------------------

def message_frame(message: Message, sender) -> dict:
    return {
        "id": message.pk,
        "conversation": message.conversation_id,
        "sender": user_ref(sender),
        "body": message.body,
        "created_at": message.created_at.isoformat(),
    }


def _conversation_ensure(sender, recipient) -> Conversation:
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


def _clean_body(body) -> str:
    if not isinstance(body, str):
        raise SocialError("A message must be text.", "invalid")
    body = body.replace("\r\n", "\n").strip()
    if not body:
        raise SocialError("Write a message first.", "empty")
    if len(body) > MESSAGE_MAX_LENGTH:
        raise SocialError(
            f"A message can be at most {MESSAGE_MAX_LENGTH:,} characters "
            f"(this one has {len(body):,}).",
            "too_long",
        )
    return body


def message_recipient(user_id) -> object:
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


def message_send(*, sender, recipient, body) -> Message:
    """Send a private message; it reaches every open tab of both participants."""
    body = _clean_body(body)
    _check(policy.can_message(sender, recipient, hit=True))
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
        frame = message_frame(message, sender)
        sender_id, recipient_id, conv_id = sender.pk, recipient.pk, conversation.pk
        sender_ref, recipient_ref = user_ref(sender), user_ref(recipient)

        def deliver():
            total, count = selectors.unread_counts(recipient_id, conv_id)
            mine = {"type": "message", "message": frame, "mine": True, "with": recipient_ref}
            if sender_read:  # the reply marked the conversation read for the sender
                s_total, s_count = selectors.unread_counts(sender_id, conv_id)
                mine["unread"] = {"total": s_total, "conversation": conv_id, "count": s_count}
            notify_many(
                [
                    (
                        [recipient_id],
                        {
                            "type": "message",
                            "message": frame,
                            "mine": False,
                            "with": sender_ref,
                            "unread": {"total": total, "conversation": conv_id, "count": count},
                        },
                    ),
                    ([sender_id], mine),
                ]
            )

        transaction.on_commit(deliver)
    return message


def _unread_frame(user_id: int, conversation_id: int) -> dict:
    total, count = selectors.unread_counts(user_id, conversation_id)
    return {"type": "unread", "total": total, "conversation": conversation_id, "count": count}


def conversation_mark_read(*, user, conversation_id, up_to: int | None = None) -> int:
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


def conversation_delete(*, user, conversation_id) -> None:
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
            lambda: notify_users(
                [uid],
                {**_unread_frame(uid, cid), "type": "unread", "deleted": True},
            )
        )


# --- Invitations to a table --------------------------------------------------------------------

def invitation_frame(invitation: Invitation, table) -> dict:
    return {
        "id": invitation.pk,
        "from": user_ref(invitation.from_user),
        "to": user_ref(invitation.to_user),
        "table": {"id": invitation.table_id, "name": table.name if table else "",
                  "url": table.url if table else ""},
        "status": invitation.status,
        "created_at": invitation.created_at.isoformat(),
    }


def _invitation_expired(invitation: Invitation) -> bool:
    age = (timezone.now() - invitation.created_at).total_seconds()
    return age > conf.get("INVITE_TTL")


def invitation_send(*, sender, recipient, table_id: int) -> Invitation:
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
    _check(policy.can_invite(sender, recipient, hit=True))
    with transaction.atomic():
        if existing:
            Invitation.objects.filter(pk=existing.pk).update(
                status=InvitationStatus.EXPIRED, responded_at=timezone.now()
            )
        invitation = Invitation.objects.create(
            from_user=sender, to_user=recipient, table_id=table_id
        )
        frame = invitation_frame(invitation, info)
        _after_commit([recipient.pk], {"type": "invitation", "event": "received",
                                       "invitation": frame})
        _after_commit([sender.pk], {"type": "invitation", "event": "sent", "invitation": frame})
    return invitation


def _pending_invitation(invitation_id, **owner) -> Invitation:
    try:
        invitation = (
            Invitation.objects.select_for_update()
            .select_related("from_user", "to_user")
            .get(pk=invitation_id, **owner)
        )
    except (Invitation.DoesNotExist, ValueError, TypeError):
        raise NotFound("This invitation does not exist.") from None
    if invitation.status != InvitationStatus.PENDING:
        raise SocialError(
            f"This invitation was already {invitation.get_status_display().lower()}.", "answered"
        )
    return invitation


def _invitation_close(invitation: Invitation, status: str, table=None) -> None:
    invitation.status = status
    invitation.responded_at = timezone.now()
    invitation.save(update_fields=["status", "responded_at"])
    frame = invitation_frame(invitation, table or tables.table_get(invitation.table_id))
    event = {"type": "invitation", "event": status, "invitation": frame}
    _after_commit([invitation.from_user_id, invitation.to_user_id], event)


def invitation_accept(*, user, invitation_id) -> str:
    """Accept: seat ``user`` at the table (through the games service); returns its URL.

    An invitation that can no longer be honoured (expired, the table full or started, a block
    since) is closed and the reason raised as :class:`SocialError`.
    """
    error = None
    with transaction.atomic():
        invitation = _pending_invitation(invitation_id, to_user=user)
        if policy.is_blocked_either_way(invitation.from_user_id, user.pk):
            _invitation_close(invitation, InvitationStatus.CANCELLED)
            error = NotFound("This invitation does not exist.")
        elif _invitation_expired(invitation):
            _invitation_close(invitation, InvitationStatus.EXPIRED)
            error = SocialError("This invitation has expired.", "expired")
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


def invitation_decline(*, user, invitation_id) -> None:
    with transaction.atomic():
        invitation = _pending_invitation(invitation_id, to_user=user)
        _invitation_close(invitation, InvitationStatus.DECLINED)


def invitation_cancel(*, user, invitation_id) -> None:
    with transaction.atomic():
        invitation = _pending_invitation(invitation_id, from_user=user)
        _invitation_close(invitation, InvitationStatus.CANCELLED)
