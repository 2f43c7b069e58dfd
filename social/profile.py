"""The buttons on another player's profile: Message, Add contact (or where the request
stands), Invite to a table, Block/Unblock. Registered with ``accounts.profile_actions`` in
``SocialConfig.ready()`` (accounts sits below social and never imports it).

What is offered follows the same verdicts as the endpoints (``policy``), asked without
counting against the rate limits, so a button never leads to a refusal the page could have
known about. Your own block hides Message, Add contact and Invite. The person blocked sees the
page anybody sees of someone who takes no messages: Add contact stays (their request is kept
unseen: ``services.contact_request_send``), so they cannot tell they are blocked.
"""
from __future__ import annotations

from typing import Any

from django.db.models import Q

from . import policy, selectors, tables
from .models import Block, ContactRequest, Invitation, InvitationStatus
from .selectors import Relation


def profile_actions(*, viewer, person, next_url: str = "") -> dict[str, Any] | None:
    """The state of the buttons for ``viewer`` on ``person``'s profile, or None (visitors,
    your own profile, an inactive account). Two queries (the policy's facts, the contact
    requests both ways), one more under a block, three more for a contact (the pending
    invitation, the open tables)."""
    if viewer is None or not getattr(viewer, "is_authenticated", False):
        return None
    if viewer.pk == person.pk or not person.is_active:
        return None
    blocked_either_way, contact, message, challenge_verdict = policy.profile_facts(viewer,
                                                                                    person)
    requests = dict(ContactRequest.objects.filter(
        Q(from_user=viewer, to_user=person) | Q(from_user=person, to_user=viewer)
    ).values_list("from_user_id", "id"))
    blocking = blocked_either_way and Block.objects.filter(blocker=viewer,
                                                           blocked=person).exists()
    rel = Relation(contact, requests.get(viewer.pk), requests.get(person.pk), blocking)
    # (blocked by ``person``: message and challenge verdicts refuse as for someone who takes
    # none; the rest of the page is what anybody sees)
    blocked = blocking
    # a rate limit passes: it is only a wait, and the conversation page says how long
    can_message = message.allowed or message.reason == policy.Reason.RATE_LIMITED
    invite_tables: list[tables.TableInfo] = []
    invitation = None
    if rel.contact and not blocked:
        invitation = (Invitation.objects.filter(from_user=viewer, to_user=person,
                                                status=InvitationStatus.PENDING)
                      .order_by("-created_at").first())
        invite_tables = [t for t in tables.tables_for_inviter(viewer)
                         if person.pk not in t.seated_user_ids]
    invited_to = tables.table_get(invitation.table_id) if invitation else None
    # A game with a bot account: offered when the policy would let it through (asked
    # without using up the rate limit, which is only a wait).
    can_challenge = (challenge_verdict.allowed
                     or challenge_verdict.reason == policy.Reason.RATE_LIMITED)
    return {
        "person": person,
        "rel": rel,
        "blocked": blocked,
        "can_message": can_message and not blocked,
        "contacts_only": message.reason == policy.Reason.NOT_CONTACTS,
        "can_request": not blocked and not rel.contact and not rel.request_out
        and not rel.request_in,
        "can_invite": rel.contact and not blocked,
        "invite_tables": invite_tables,
        "invitation": invitation,
        "invited_to": invited_to,
        "next": next_url or person.get_absolute_url(),
        "can_challenge": can_challenge and not blocked,
        "challenge": selectors.challenge_pending_between(viewer, person)
        if can_challenge and not blocked else None,
        "mode_choices": tables.mode_choices(),
    }


def profile_actions_section(*, profile_user, viewer) -> dict[str, Any] | None:
    return profile_actions(viewer=viewer, person=profile_user)
