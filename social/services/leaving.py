"""A closing account leaves the social app (``accounts.closing``): through the same writes
a player makes by hand, so the people on the other side see it live (a contact removed, a
request or challenge gone)."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db.models import Q, QuerySet

from accounts.models import User

from ..models import (
    Block,
    Challenge,
    ChallengeStatus,
    ContactRequest,
    ConversationMember,
    Invitation,
    InvitationStatus,
    LastSeen,
    SocialSettings,
)
from .blocks import block_remove
from .challenges import challenge_cancel, challenge_decline
from .contacts import contact_remove, contact_request_cancel, contact_request_decline
from .invitations import invitation_cancel, invitation_decline
from .messages import conversation_delete


def social_leave(user: User) -> None:
    """Remove ``user``'s contacts, requests, blocks (made and received: a closed account is
    nobody to block), pending invitations and challenges (both ways) and conversations (from
    their own inbox: the other person keeps theirs), and their message settings and
    last-seen time."""
    for other in User.objects.filter(contact_links__contact=user):
        contact_remove(user=user, other=other)
    _answer_all(user, ContactRequest.objects.all(),
                lambda pk: contact_request_decline(user=user, request_id=pk),
                lambda pk: contact_request_cancel(user=user, request_id=pk))
    for blocked in User.objects.filter(blocks_received__blocker=user):
        block_remove(user=user, target=blocked)
    Block.objects.filter(blocked=user).delete()
    _answer_all(user, Invitation.objects.filter(status=InvitationStatus.PENDING),
                lambda pk: invitation_decline(user=user, invitation_id=pk),
                lambda pk: invitation_cancel(user=user, invitation_id=pk))
    _answer_all(user, Challenge.objects.filter(status=ChallengeStatus.PENDING),
                lambda pk: challenge_decline(user=user, challenge_id=pk),
                lambda pk: challenge_cancel(user=user, challenge_id=pk))
    for conversation_id in ConversationMember.objects.filter(user=user).values_list(
        "conversation_id", flat=True
    ):
        conversation_delete(user=user, conversation_id=conversation_id)
    SocialSettings.objects.filter(user=user).delete()
    LastSeen.objects.filter(user=user).delete()


def _answer_all(user: User, pending: QuerySet[Any], decline: Callable[[int], object],
                cancel: Callable[[int], object]) -> None:
    """Each of ``pending`` (rows with a ``from_user`` and a ``to_user``) between ``user`` and
    someone else: declined when it is to ``user``, cancelled when it is theirs."""
    for pk, to_id in pending.filter(Q(from_user=user) | Q(to_user=user)).values_list(
        "pk", "to_user_id"
    ):
        (decline if to_id == user.pk else cancel)(pk)
