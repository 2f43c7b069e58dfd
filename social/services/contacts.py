"""Contact requests and contacts: send, accept, decline, cancel, remove."""
from __future__ import annotations

from typing import TYPE_CHECKING

from django.db import IntegrityError, transaction
from django.db.models import Q

from .. import frames, policy
from ..models import Contact, ContactRequest
from ..presence import presence_of
from ..selectors import contact_ratings
from .errors import NotFound, SocialError, policy_check
from .publish import notify_after_commit

if TYPE_CHECKING:
    from accounts.models import User


def _contact_pair_create(a: User, b: User) -> None:
    """Make ``a`` and ``b`` contacts both ways, ``a`` answering ``b``'s request; each is told
    of the other after the commit, ``b`` that ``a`` accepted (nothing had told them)."""
    Contact.objects.get_or_create(user=a, contact=b)
    Contact.objects.get_or_create(user=b, contact=a)
    presence = presence_of([a.pk, b.pk])
    # each one's entry as the list draws it, rating included (a live entry had none)
    labels = contact_ratings([a.pk, b.pk])
    for me, other in ((a, b), (b, a)):
        notify_after_commit([me.pk], frames.contact_added(other, presence[other.pk],
                                                          labels.get(other.pk),
                                                          accepted=me is b))


def contact_request_send(*, sender: User, recipient: User) -> ContactRequest | None:
    """Ask ``recipient`` to become a contact of ``sender``.

    If ``recipient`` had already asked ``sender``, this accepts that request instead and
    returns None. Sending the same request twice is harmless.
    """
    if Contact.objects.filter(user=sender, contact=recipient).exists():
        raise SocialError("You are already contacts.", "already_contacts")
    existing = ContactRequest.objects.filter(from_user=sender, to_user=recipient).first()
    if existing:
        return existing
    # Someone who blocks the sender: the request is kept but never shown to them nor told
    # (``selectors.requests_incoming``), so the sender cannot tell a block from silence.
    unseen = policy.blockers_between(sender.pk, recipient.pk) == {recipient.pk}
    policy_check(policy.can_request(sender, recipient, hit=True, unseen=unseen))
    with transaction.atomic():
        reverse = (
            ContactRequest.objects.select_for_update()
            .filter(from_user=recipient, to_user=sender)
            .first()
        )
        if reverse is not None:
            reverse.delete()
            _contact_pair_create(sender, recipient)
            return None
        try:
            with transaction.atomic():
                request = ContactRequest.objects.create(from_user=sender, to_user=recipient)
        except IntegrityError:  # the same request sent twice at once
            return ContactRequest.objects.get(from_user=sender, to_user=recipient)
        if not unseen:
            notify_after_commit([recipient.pk],
                                frames.contact_request_added("received", request.pk, sender))
        notify_after_commit([sender.pk],
                            frames.contact_request_added("sent", request.pk, recipient))
    return request


def _request_for(user: User, request_id: int, *, incoming: bool) -> ContactRequest:
    field = "to_user" if incoming else "from_user"
    try:
        return (
            ContactRequest.objects.select_for_update()
            .select_related("from_user", "to_user")
            .get(pk=request_id, **{field: user})
        )
    except (ContactRequest.DoesNotExist, ValueError, TypeError):
        raise NotFound("This contact request does not exist any more.") from None


def contact_request_accept(*, user: User, request_id: int) -> None:
    with transaction.atomic():
        request = _request_for(user, request_id, incoming=True)
        other = request.from_user
        request.delete()
        if policy.is_blocked_either_way(user.pk, other.pk):
            return
        _contact_pair_create(user, other)
        # both sides' lists drop the request (the sender's "Requests you sent" kept it, and
        # its Cancel then answered 404)
        notify_after_commit([user.pk, other.pk], frames.contact_request_removed(request_id))


def contact_request_decline(*, user: User, request_id: int) -> None:
    with transaction.atomic():
        request = _request_for(user, request_id, incoming=True)
        request.delete()
        notify_after_commit([user.pk, request.from_user_id],
                            frames.contact_request_removed(request_id))


def contact_request_cancel(*, user: User, request_id: int) -> None:
    with transaction.atomic():
        request = _request_for(user, request_id, incoming=False)
        request.delete()
        notify_after_commit([request.to_user_id, user.pk],
                            frames.contact_request_removed(request_id))


def contact_remove(*, user: User, other: User) -> None:
    with transaction.atomic():
        deleted, _ = Contact.objects.filter(
            Q(user=user, contact=other) | Q(user=other, contact=user)
        ).delete()
        if not deleted:
            raise NotFound("This person is not one of your contacts.")
        notify_after_commit([user.pk], frames.contact_removed(other))
        notify_after_commit([other.pk], frames.contact_removed(user))
