"""Reads of the social app. Every function issues a fixed number of queries (no N+1)."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import Count, F, OuterRef, Q, Subquery, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from core.prepared import prepared_cursor

from . import conf
from .models import (
    Block,
    Challenge,
    ChallengeStatus,
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
from .presence import Presence, presence_of

# --- Contacts -------------------------------------------------------------------------------

@dataclass(frozen=True)
class ContactRow:
    user: object
    since: object
    presence: Presence


def contact_ratings(user_ids) -> dict[int, str]:
    """The rating label a contact is shown with (Classic Gin), answered by the ratings app
    through ``games.hooks`` (empty when none is installed): the list, its JSON and a new
    contact's live entry all read it here."""
    from games import hooks
    from games.models import Mode

    return hooks.rating_labels(user_ids, Mode.CLASSIC)


def contact_list(user) -> list[ContactRow]:
    """The user's contacts with their presence, online ones first, then by name."""
    links = list(
        Contact.objects.filter(user=user)
        .select_related("contact")
        .only("created_at", "contact__id", "contact__username", "contact__display_name",
              "contact__avatar")
    )
    presence = presence_of([link.contact_id for link in links])
    rows = [ContactRow(link.contact, link.created_at, presence[link.contact_id]) for link in links]
    order = {"playing": 0, "online": 1, "offline": 2}
    rows.sort(key=lambda r: (order[r.presence.state], r.user.public_name.lower()))
    return rows


def requests_incoming(user):
    """The requests ``user`` is asked to answer: none from people they block (a blocked
    person's request is kept unseen, so that they cannot tell), nor from closed accounts."""
    return (ContactRequest.objects.filter(to_user=user, from_user__is_active=True)
            .exclude(from_user__in=Block.objects.filter(blocker=user).values("blocked_id"))
            .select_related("from_user"))


def requests_waiting(user, limit: int = 11) -> list[ContactRequest]:
    """The requests ``user`` has still to answer, newest first, at most ``limit`` (the home
    page's list, which shows ten and links to the rest: a player away when one came had no
    sign of it but on the contacts page)."""
    if not user.is_authenticated:
        return []
    return list(requests_incoming(user).order_by("-created_at")[:limit])


def requests_incoming_count(user) -> int:
    """How many requests ``user`` has still to answer (the Contacts tab's count)."""
    if not user.is_authenticated:
        return 0
    return requests_incoming(user).count()


def requests_outgoing(user):
    return ContactRequest.objects.filter(from_user=user).select_related("to_user")


def blocked_list(user):
    return Block.objects.filter(blocker=user).select_related("blocked")


def message_policy_get(user) -> str:
    value = (
        SocialSettings.objects.filter(user=user).values_list("message_policy", flat=True).first()
    )
    return value or MessagePolicy.EVERYONE


@dataclass(frozen=True)
class Relation:
    """How ``viewer`` relates to ``other`` (for buttons on search results and profiles)."""

    contact: bool = False
    request_out: int | None = None
    request_in: int | None = None
    blocking: bool = False


def relations_with(viewer, user_ids) -> dict[int, Relation]:
    user_ids = list(user_ids)
    contacts = set(
        Contact.objects.filter(user=viewer, contact_id__in=user_ids).values_list(
            "contact_id", flat=True
        )
    )
    out = dict(
        ContactRequest.objects.filter(from_user=viewer, to_user_id__in=user_ids).values_list(
            "to_user_id", "id"
        )
    )
    inc = dict(
        ContactRequest.objects.filter(to_user=viewer, from_user_id__in=user_ids).values_list(
            "from_user_id", "id"
        )
    )
    blocking = set(
        Block.objects.filter(blocker=viewer, blocked_id__in=user_ids).values_list(
            "blocked_id", flat=True
        )
    )
    return {
        uid: Relation(uid in contacts, out.get(uid), inc.get(uid), uid in blocking)
        for uid in user_ids
    }


def people_search(viewer, query: str, limit: int = 20):
    """Active users whose username starts with, or display name contains, ``query``.

    The viewer does not appear. People who block ``viewer`` do, as for anybody: leaving
    them out told the blocked person of the block.
    """
    query = (query or "").strip()[:40]
    if len(query) < 2:
        return []
    User = get_user_model()
    users = list(
        User.objects.filter(is_active=True)
        .filter(Q(username__istartswith=query) | Q(display_name__icontains=query))
        .exclude(pk=viewer.pk)
        .order_by("username")
        .only("id", "username", "display_name", "avatar")[:limit]
    )
    relations = relations_with(viewer, [u.pk for u in users])
    return [(u, relations[u.pk]) for u in users]


# --- Conversations ---------------------------------------------------------------------------

def _unread_subquery():
    return Coalesce(
        Subquery(
            Message.objects.filter(
                conversation_id=OuterRef("conversation_id"), id__gt=OuterRef("last_read_id")
            )
            .exclude(sender_id=OuterRef("user_id"))
            .order_by()
            .values("conversation_id")
            .annotate(n=Count("id"))
            .values("n")[:1]
        ),
        Value(0),
    )


def conversation_list(user):
    """The user's visible conversations, latest activity first, with the other participant,
    the last message and the unread count of each (one query)."""
    return (
        ConversationMember.objects.filter(
            user=user, conversation__last_message_id__gt=F("deleted_up_to")
        )
        .select_related("other", "conversation__last_message")
        .annotate(unread=_unread_subquery())
        .order_by("-conversation__last_message_id")
    )


def conversation_member(user, conversation_id) -> ConversationMember:
    """The user's membership of a conversation; ``DoesNotExist`` for anybody else."""
    return ConversationMember.objects.select_related("conversation", "other").get(
        conversation_id=conversation_id, user=user
    )


def conversation_member_with(user, other) -> ConversationMember | None:
    low, high = sorted((user.pk, other.pk))
    conv = Conversation.objects.filter(user_low_id=low, user_high_id=high).first()
    if conv is None:
        return None
    return ConversationMember.objects.select_related("conversation", "other").filter(
        conversation=conv, user=user
    ).first()


def conversation_history(member: ConversationMember, before: int | None = None,
                         limit: int | None = None):
    """A page of messages the member may see, oldest first, and whether older ones exist."""
    limit = limit or conf.get("HISTORY_PAGE")
    qs = Message.objects.filter(
        conversation_id=member.conversation_id, id__gt=member.deleted_up_to
    ).select_related("sender").only(
        "id", "body", "created_at", "conversation_id", "sender__id", "sender__username",
        "sender__display_name",
    )
    if before is not None:
        qs = qs.filter(id__lt=before)
    page = list(qs.order_by("-id")[: limit + 1])
    has_more = len(page) > limit
    return list(reversed(page[:limit])), has_more


def _unread_messages(user_id: int):
    """The user's unread messages: one join of messages with the user's memberships."""
    return Message.objects.filter(
        conversation__members__user_id=user_id,
        id__gt=F("conversation__members__last_read_id"),
    ).exclude(sender_id=user_id)


_UNREAD_COUNTS_SQL: str | None = None


def _unread_counts_sql() -> str:
    global _UNREAD_COUNTS_SQL
    if _UNREAD_COUNTS_SQL is None:
        q = connection.ops.quote_name
        _UNREAD_COUNTS_SQL = (
            "SELECT COUNT(m.id),"
            " COALESCE(SUM(CASE WHEN m.conversation_id = %s THEN 1 ELSE 0 END), 0)"
            f" FROM {q(Message._meta.db_table)} m"
            f" JOIN {q(ConversationMember._meta.db_table)} cm"
            " ON cm.conversation_id = m.conversation_id"
            " WHERE cm.user_id = %s AND m.id > cm.last_read_id AND m.sender_id <> %s"
        )
    return _UNREAD_COUNTS_SQL


def unread_counts(user_id: int, conversation_id: int) -> tuple[int, int]:
    """(unread total, unread in ``conversation_id``) for the user, in one query.

    The same count as :func:`unread_total`, in plain SQL: it runs for every message
    delivered, and the ORM spent more CPU building it than the database answering it."""
    with prepared_cursor() as cursor:
        cursor.execute(_unread_counts_sql(), [conversation_id, user_id, user_id])
        total, here = cursor.fetchone()
    return int(total), int(here)


def conversation_unread(user_id: int, conversation_id: int) -> int:
    return _unread_messages(user_id).filter(conversation_id=conversation_id).count()


def unread_total(user_id: int) -> int:
    """Unread messages across all the user's conversations (one query)."""
    return _unread_messages(user_id).count()


# --- Invitations -----------------------------------------------------------------------------

def invitations_received(user):
    return Invitation.objects.filter(
        to_user=user, status=InvitationStatus.PENDING
    ).select_related("from_user")


def invitations_sent(user):
    return Invitation.objects.filter(
        from_user=user, status=InvitationStatus.PENDING
    ).select_related("to_user")


def invitation_rows(invitations) -> list[tuple]:
    """``(invitation, TableInfo or None)`` pairs, with every table read in one query."""
    from .tables import tables_get

    invitations = list(invitations)
    infos = tables_get([i.table_id for i in invitations]) if invitations else {}
    return [(i, infos.get(i.table_id)) for i in invitations]


def invitations_waiting(user) -> list[tuple]:
    """The invitations ``user`` can still accept, as ``invitation_rows``: pending, not
    expired, to a table still open with a free seat; newest first (the home page's list,
    for a player who was away when they came)."""
    if not user.is_authenticated:
        return []
    ttl: int = conf.get("INVITE_TTL")
    fresh = invitations_received(user).filter(
        created_at__gte=timezone.now() - timedelta(seconds=ttl)).order_by("-created_at")[:10]
    return [(i, t) for i, t in invitation_rows(fresh) if t is not None and t.joinable]


# --- Challenges ------------------------------------------------------------------------------

def _challenges(**where):
    return Challenge.objects.filter(**where).select_related("from_user", "to_user")


def challenges_pending(user) -> tuple[list[Challenge], list[Challenge]]:
    """(challenges waiting for ``user``'s answer, those ``user`` sent that wait), newest
    first; expired ones are left out (``services.challenges_expire`` closes them)."""
    ttl: int = conf.get("CHALLENGE_TTL")
    fresh = timezone.now() - timedelta(seconds=ttl)
    pending = {"status": ChallengeStatus.PENDING, "created_at__gte": fresh}
    return (list(_challenges(to_user=user, **pending)[:50]),
            list(_challenges(from_user=user, **pending)[:50]))


def challenges_recent(user, limit: int = 10) -> list[Challenge]:
    """``user``'s last answered challenges, either side (the page's "Recent" list: an
    accepted one links to its table)."""
    return list(
        Challenge.objects.filter(Q(from_user=user) | Q(to_user=user))
        .exclude(status=ChallengeStatus.PENDING)
        .select_related("from_user", "to_user")
        .order_by("-responded_at", "-id")[:limit]
    )


def challenge_pending_between(sender, recipient) -> Challenge | None:
    """The newest open challenge ``sender`` made to ``recipient`` (the profile's button)."""
    ttl: int = conf.get("CHALLENGE_TTL")
    fresh = timezone.now() - timedelta(seconds=ttl)
    return (Challenge.objects.filter(from_user=sender, to_user=recipient,
                                     status=ChallengeStatus.PENDING, created_at__gte=fresh)
            .order_by("-created_at").first())
