"""Records of the social app: contacts, blocks, preferences, conversations, invitations.

Relations are stored the way queries read them:

* A contact is symmetric and stored as two rows (``user -> contact`` and back), so "my
  contacts" is one indexed filter. Only the services create or delete them, always in pairs.
* A conversation has exactly two participants, each with a :class:`ConversationMember` row
  that carries that participant's own markers: ``deleted_up_to`` (messages with an id at or
  below it are hidden for this participant only) and ``last_read_id`` (messages above it that
  the other participant sent are unread). ``last_read_id`` never falls below
  ``deleted_up_to``, so unread counts are ``id > last_read_id and sender != me``: exact, and
  computed from the messages themselves rather than a counter that could drift.
"""
from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q

from games.models import Mode

MESSAGE_MAX_LENGTH = 2000


def once_per_pair(first: str, second: str, name: str) -> list[models.BaseConstraint]:
    """A relation between two users (a request, a contact, a block): one row per ordered
    pair, and never from a user to themselves."""
    return [
        models.UniqueConstraint(fields=[first, second], name=f"{name}_once"),
        models.CheckConstraint(condition=~Q(**{first: F(second)}), name=f"{name}_not_self"),
    ]


class ContactRequest(models.Model):
    """A pending request from ``from_user`` to become contacts with ``to_user``.

    Accepting, declining or cancelling deletes the row: only pending requests exist.
    """

    from_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="contact_requests_sent"
    )
    to_user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="contact_requests_received",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = once_per_pair("from_user", "to_user", "social_request")

    def __str__(self):
        return f"{self.from_user_id} -> {self.to_user_id}"


class Contact(models.Model):
    """One direction of a symmetric contact relation (the other direction is another row)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="contact_links"
    )
    contact = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = once_per_pair("user", "contact", "social_contact")

    def __str__(self):
        return f"{self.user_id} <-> {self.contact_id}"


class Block(models.Model):
    """``blocker`` blocks ``blocked``. The blocked user is never told."""

    blocker = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="blocks_made"
    )
    blocked = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="blocks_received"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = once_per_pair("blocker", "blocked", "social_block")

    def __str__(self):
        return f"{self.blocker_id} blocks {self.blocked_id}"


class MessagePolicy(models.TextChoices):
    EVERYONE = "everyone", "Everyone"
    CONTACTS = "contacts", "Only my contacts"
    NOBODY = "nobody", "Nobody"


class SocialSettings(models.Model):
    """Per-user social preferences. A missing row means the defaults."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="social_settings",
    )
    message_policy = models.CharField(
        "who may send me private messages",
        max_length=10,
        choices=MessagePolicy.choices,
        default=MessagePolicy.EVERYONE,
    )

    def __str__(self):
        return f"{self.user_id}: {self.message_policy}"


class LastSeen(models.Model):
    """When the user was last connected (written on disconnect and, throttled, on heartbeat)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="+"
    )
    at = models.DateTimeField()

    def __str__(self):
        return f"{self.user_id} seen {self.at:%Y-%m-%d %H:%M}"


class Conversation(models.Model):
    """A private conversation between exactly two users (``user_low.id < user_high.id``)."""

    user_low = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    user_high = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    last_message = models.ForeignKey(
        "Message", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user_low", "user_high"], name="social_conv_pair"),
            models.CheckConstraint(
                condition=Q(user_low__lt=F("user_high")), name="social_conv_ordered"
            ),
        ]

    def __str__(self):
        return f"conversation {self.pk} ({self.user_low_id}, {self.user_high_id})"

    def has_participant(self, user_id: int) -> bool:
        return user_id in (self.user_low_id, self.user_high_id)

    def other_id(self, user_id: int) -> int:
        return self.user_high_id if user_id == self.user_low_id else self.user_low_id


class ConversationMember(models.Model):
    """One participant's view of a conversation: their own read and delete markers."""

    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="members")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="conversation_memberships"
    )
    other = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    deleted_up_to = models.BigIntegerField(default=0)
    last_read_id = models.BigIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["conversation", "user"], name="social_member_once"),
        ]
        indexes = [models.Index(fields=["user", "conversation"], name="social_member_user")]

    def __str__(self):
        return f"{self.user_id} in {self.conversation_id}"


class Message(models.Model):
    conversation = models.ForeignKey(
        Conversation, on_delete=models.CASCADE, related_name="messages"
    )
    sender = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    body = models.TextField(max_length=MESSAGE_MAX_LENGTH)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["conversation", "id"], name="social_msg_conv_id")]

    def __str__(self):
        return f"message {self.pk} in {self.conversation_id}"


class InvitationStatus(models.TextChoices):
    PENDING = "pending", "Pending"
    ACCEPTED = "accepted", "Accepted"
    DECLINED = "declined", "Declined"
    CANCELLED = "cancelled", "Cancelled"
    EXPIRED = "expired", "Expired"


class Invitation(models.Model):
    """An invitation from ``from_user`` to ``to_user`` to sit at table ``table_id``.

    The table lives in the ``games`` app, below ``social`` in the layering; ``social`` keeps
    the table's id rather than a foreign key and reads and seats through ``social.tables``
    (its one adapter over ``games``).
    """

    from_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="invitations_sent"
    )
    to_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="invitations_received"
    )
    table_id = models.BigIntegerField()
    status = models.CharField(
        max_length=10, choices=InvitationStatus.choices, default=InvitationStatus.PENDING
    )
    created_at = models.DateTimeField(auto_now_add=True)
    responded_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["from_user", "to_user", "table_id"],
                condition=Q(status="pending"),
                name="social_invitation_pending_once",
            ),
            models.CheckConstraint(
                condition=~Q(from_user=F("to_user")), name="social_invitation_not_self"
            ),
        ]
        indexes = [models.Index(fields=["to_user", "status"], name="social_inv_to_status")]

    def __str__(self):
        return f"invitation {self.pk}: {self.from_user_id} -> {self.to_user_id} @ {self.table_id}"


class ChallengeStatus(models.TextChoices):
    PENDING = "pending", "Pending"
    ACCEPTED = "accepted", "Accepted"
    DECLINED = "declined", "Declined"
    CANCELLED = "cancelled", "Cancelled"
    EXPIRED = "expired", "Expired"


class Challenge(models.Model):
    """A challenge from ``from_user`` to ``to_user`` to play one game (docs/bot-api.md,
    "Challenges"): a person or a bot challenges a bot, or a bot challenges a person who lets
    bots challenge them. Accepting opens a table with both seated (``table_id``, an id into
    the games app, as for invitations)."""

    from_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="challenges_sent"
    )
    to_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="challenges_received"
    )
    mode = models.CharField(max_length=16, choices=Mode.choices)
    target = models.PositiveSmallIntegerField(null=True, blank=True)
    seconds_per_turn = models.PositiveSmallIntegerField(default=30)
    rated = models.BooleanField(default=False)
    status = models.CharField(
        max_length=10, choices=ChallengeStatus.choices, default=ChallengeStatus.PENDING
    )
    created_at = models.DateTimeField(auto_now_add=True)
    responded_at = models.DateTimeField(null=True, blank=True)
    table_id = models.BigIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=~Q(from_user=F("to_user")), name="social_challenge_not_self"
            ),
        ]
        indexes = [
            models.Index(fields=["to_user", "status"], name="social_chal_to_status"),
            models.Index(fields=["from_user", "status"], name="social_chal_from_status"),
        ]

    def __str__(self):
        return f"challenge {self.pk}: {self.from_user_id} -> {self.to_user_id} ({self.mode})"
