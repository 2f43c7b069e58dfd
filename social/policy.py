"""Who may message, request or invite whom: one place decides, every path asks it.

Modelled on Lichess's ``MsgSecurity``: each question returns a :class:`Verdict` instead of
raising or returning a bare boolean, so a view, a consumer or a service can both decide and
explain. The order of checks matters and is the same everywhere:

1. yourself (``SELF``), an inactive account (``UNAVAILABLE``);
2. a block in either direction (``BLOCKED``);
3. the recipient's preference (``PREFERENCE`` for "nobody", ``NOT_CONTACTS`` for
   "contacts only" or for invitations, which go to contacts only);
4. the sender's rate limit (``RATE_LIMITED``), checked last so a refused attempt for another
   reason never costs a slot.

A blocked user is never told they are blocked: ``BLOCKED`` and ``PREFERENCE`` share the same
generic wording. Pass ``hit=True`` from the code path that actually performs the action, so
the rate-limit counter is consumed only there (pages that merely show a form do not).

>>> v = Verdict.deny(Reason.BLOCKED, "message")
>>> bool(v), v.reason.value, v.message
(False, 'blocked', 'You cannot message this user.')
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from enum import StrEnum

from django.db import connection
from django.db.models import Q
from django.utils import timezone

from core.cache import count_hit, read_count
from core.prepared import prepared_cursor

from . import conf
from .models import Block, Contact, MessagePolicy, SocialSettings


class Reason(StrEnum):
    SELF = "self"
    UNAVAILABLE = "unavailable"
    BLOCKED = "blocked"
    PREFERENCE = "preference"
    NOT_CONTACTS = "not_contacts"
    RATE_LIMITED = "rate_limited"
    NOT_BOT = "not_bot"


_GENERIC = {
    "message": "You cannot message this user.",
    "request": "You cannot send a contact request to this user.",
    "invite": "You cannot invite this user.",
    "challenge": "You cannot challenge this user.",
}
_TEXT = {
    Reason.SELF: {
        "message": "You cannot message yourself.",
        "request": "You cannot add yourself as a contact.",
        "invite": "You cannot invite yourself.",
        "challenge": "You cannot challenge yourself.",
    },
    Reason.NOT_CONTACTS: {
        "message": "This user only accepts messages from their contacts.",
        "request": "You cannot send a contact request to this user.",
        "invite": "You can only invite your contacts.",
        "challenge": "You cannot challenge this user.",
    },
    Reason.RATE_LIMITED: {
        "message": "You are sending messages too fast. Please wait {retry} s and try again.",
        "request": "You have sent too many contact requests. Please try again in {retry} s.",
        "invite": "You are sending invitations too fast. Please wait {retry} s and try again.",
        "challenge": "You are sending challenges too fast. Please wait {retry} s and try again.",
    },
    Reason.NOT_BOT: {
        "challenge": "Challenges are games with a bot account: invite a person to a table "
                     "instead.",
    },
}


@dataclass(frozen=True)
class Verdict:
    """The answer to "may A do this to B?". Truthy when allowed."""

    reason: Reason | None = None
    message: str = ""
    retry_after: int | None = None

    @property
    def allowed(self) -> bool:
        return self.reason is None

    def __bool__(self) -> bool:
        return self.allowed

    @property
    def public_code(self) -> str | None:
        """The code shown to the refused user: blocks, preferences and inactive accounts all
        read ``not_allowed`` so a blocked user cannot tell they are blocked."""
        if self.reason in (Reason.BLOCKED, Reason.PREFERENCE, Reason.UNAVAILABLE):
            return "not_allowed"
        return self.reason.value if self.reason else None

    @classmethod
    def deny(cls, reason: Reason, action: str, retry_after: int | None = None) -> Verdict:
        text = _TEXT.get(reason, _GENERIC)[action]
        return cls(reason, text.format(retry=retry_after or 60), retry_after)


ALLOWED = Verdict()


# --- Relations (small, indexed queries) --------------------------------------------------

def is_blocked_either_way(a_id: int, b_id: int) -> bool:
    return Block.objects.filter(
        Q(blocker_id=a_id, blocked_id=b_id) | Q(blocker_id=b_id, blocked_id=a_id)
    ).exists()


def are_contacts(a_id: int, b_id: int) -> bool:
    return Contact.objects.filter(user_id=a_id, contact_id=b_id).exists()


# --- Rate limits (cache counters in fixed windows; shared across processes with Redis) ----

def _rate_key(action: str, user_id: int, window: int, period: int) -> str:
    return f"social:rl:{action}:{user_id}:{period}:{window}"


def rate_limit(action: str, user_id: int, limit: int, period: int, *, hit: bool) -> int | None:
    """Count one attempt (when ``hit``) and return the seconds to wait if over ``limit``.

    Returns ``None`` when the attempt is within the limit.
    """
    now = time.time()
    window = int(now // period)
    key = _rate_key(action, user_id, window, period)
    retry = max(1, int((window + 1) * period - now) + 1)
    if hit:
        count = count_hit(key, period * 2)
        return retry if count > limit else None
    return retry if read_count(key) >= limit else None


def message_rate_for(user) -> int:
    joined = getattr(user, "date_joined", None)
    young = joined is not None and (timezone.now() - joined).total_seconds() < conf.get(
        "NEW_ACCOUNT_AGE"
    )
    return conf.get("MESSAGE_RATE_NEW_ACCOUNT") if young else conf.get("MESSAGE_RATE")


# --- The three questions ------------------------------------------------------------------

@dataclass(frozen=True)
class _Facts:
    blocked: bool
    contact: bool
    policy: str
    # Both accounts active now (a socket's user object is read once, at connect).
    active: bool = True


_FACTS_SQL: str | None = None


def _facts_sql() -> str:
    global _FACTS_SQL
    if _FACTS_SQL is None:
        from django.contrib.auth import get_user_model

        User = get_user_model()
        q = connection.ops.quote_name
        _FACTS_SQL = (
            f"SELECT EXISTS (SELECT 1 FROM {q(Block._meta.db_table)}"
            " WHERE (blocker_id = %s AND blocked_id = %s)"
            " OR (blocker_id = %s AND blocked_id = %s)),"
            f" EXISTS (SELECT 1 FROM {q(Contact._meta.db_table)}"
            " WHERE user_id = %s AND contact_id = %s),"
            f" (SELECT message_policy FROM {q(SocialSettings._meta.db_table)} WHERE user_id = %s),"
            f" (SELECT COUNT(*) FROM {q(User._meta.db_table)}"
            " WHERE id IN (%s, %s) AND is_active = %s)"
        )
    return _FACTS_SQL


def _facts(a_id: int, b_id: int) -> _Facts:
    """Block (either way), contact, ``b``'s message preference and whether both accounts are
    active, in one query.

    Plain SQL on purpose: it runs for every message sent, and building the same query with
    the ORM's Exists/Subquery expressions cost more CPU than the database took to answer it
    (docs/social.md)."""
    with prepared_cursor() as cursor:
        cursor.execute(_facts_sql(), [a_id, b_id, b_id, a_id, a_id, b_id, b_id, a_id, b_id, True])
        blocked, contact, preference, active = cursor.fetchone()
    return _Facts(
        bool(blocked), bool(contact), preference or MessagePolicy.EVERYONE, active == 2
    )


def _common(sender, recipient, action: str, facts: _Facts) -> Verdict | None:
    if sender.pk == recipient.pk:
        return Verdict.deny(Reason.SELF, action)
    if not recipient.is_active or not sender.is_active or not facts.active:
        return Verdict.deny(Reason.UNAVAILABLE, action)
    if facts.blocked:
        return Verdict.deny(Reason.BLOCKED, action)
    return None


def can_message(sender, recipient, *, hit: bool = False) -> Verdict:
    """May ``sender`` send a private message to ``recipient``?"""
    return _message_verdict(sender, recipient, _facts(sender.pk, recipient.pk), hit=hit)


def profile_facts(viewer, person) -> tuple[bool, bool, Verdict, Verdict]:
    """For the buttons on ``person``'s profile, in the one query of the facts: (a block either
    way, contacts, may ``viewer`` message them, may ``viewer`` challenge them) -- the verdicts
    asked without using up the rate limits."""
    facts = _facts(viewer.pk, person.pk)
    return (facts.blocked, facts.contact, _message_verdict(viewer, person, facts, hit=False),
            _challenge_verdict(viewer, person, facts, hit=False))


def _message_verdict(sender, recipient, facts: _Facts, *, hit: bool) -> Verdict:
    verdict = _common(sender, recipient, "message", facts)
    if verdict is not None:
        return verdict
    if facts.policy == MessagePolicy.NOBODY:
        return Verdict.deny(Reason.PREFERENCE, "message")
    if facts.policy == MessagePolicy.CONTACTS and not facts.contact:
        return Verdict.deny(Reason.NOT_CONTACTS, "message")
    retry = rate_limit("message", sender.pk, message_rate_for(sender), 60, hit=hit)
    if retry:
        return Verdict.deny(Reason.RATE_LIMITED, "message", retry)
    return ALLOWED


def blockers_between(a_id: int, b_id: int) -> set[int]:
    """Which of the two blocks the other (their ids; empty when neither does): one query."""
    return set(Block.objects.filter(
        Q(blocker_id=a_id, blocked_id=b_id) | Q(blocker_id=b_id, blocked_id=a_id)
    ).values_list("blocker_id", flat=True))


def can_request(sender, recipient, *, hit: bool = False, unseen: bool = False) -> Verdict:
    """May ``sender`` send ``recipient`` a contact request? ``unseen``: ``recipient`` blocks
    the sender, and the request goes all the same, never shown to them."""
    verdict = _common(sender, recipient, "request", _facts(sender.pk, recipient.pk))
    if verdict is not None and not (unseen and verdict.reason == Reason.BLOCKED):
        return verdict
    retry = rate_limit("request", sender.pk, conf.get("REQUEST_RATE"), 3600, hit=hit)
    if retry:
        return Verdict.deny(Reason.RATE_LIMITED, "request", retry)
    return ALLOWED


def can_invite(sender, recipient, *, hit: bool = False) -> Verdict:
    """May ``sender`` invite ``recipient`` to a table? Only contacts can be invited."""
    facts = _facts(sender.pk, recipient.pk)
    verdict = _common(sender, recipient, "invite", facts)
    if verdict is not None:
        return verdict
    if not facts.contact:
        return Verdict.deny(Reason.NOT_CONTACTS, "invite")
    retry = rate_limit("invite", sender.pk, conf.get("INVITE_RATE"), 60, hit=hit)
    if retry:
        return Verdict.deny(Reason.RATE_LIMITED, "invite", retry)
    return ALLOWED


def can_challenge(sender, recipient, *, hit: bool = False) -> Verdict:
    """May ``sender`` challenge ``recipient`` to a game (docs/bot-api.md, "Challenges")? One
    of them must be a bot account; a bot challenges a person only if that person lets bots
    challenge them (``User.bots_may_challenge``, read as a "nobody" preference when off)."""
    return _challenge_verdict(sender, recipient, _facts(sender.pk, recipient.pk), hit=hit)


def _challenge_verdict(sender, recipient, facts: _Facts, *, hit: bool) -> Verdict:
    verdict = _common(sender, recipient, "challenge", facts)
    if verdict is not None:
        return verdict
    if not sender.is_bot and not recipient.is_bot:
        return Verdict.deny(Reason.NOT_BOT, "challenge")
    if sender.is_bot and not recipient.is_bot and not recipient.bots_may_challenge:
        return Verdict.deny(Reason.PREFERENCE, "challenge")
    retry = rate_limit("challenge", sender.pk, conf.get("CHALLENGE_RATE"), 60, hit=hit)
    if retry:
        return Verdict.deny(Reason.RATE_LIMITED, "challenge", retry)
    return ALLOWED


def block_related_ids(user_id: int) -> set[int]:
    """Everyone ``user_id`` blocks or is blocked by (for hiding table chat, private tables).
    Asked at every table socket's open and snapshot, so the query is written out: built by
    the ORM it cost about five times its database round trip (``bench/open_service.py``)."""
    table = connection.ops.quote_name(Block._meta.db_table)
    with prepared_cursor() as cursor:
        cursor.execute(f"SELECT blocker_id, blocked_id FROM {table}"
                       " WHERE blocker_id = %s OR blocked_id = %s", [user_id, user_id])
        pairs = cursor.fetchall()
    return {b if a == user_id else a for a, b in pairs}
