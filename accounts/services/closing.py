"""Closing an account (Settings, Close account; `accounts.closing`, docs/architecture.md).

The account is kept, closed, so that the games it played stay whole in its opponents'
records and its username is never given to someone else; everything personal goes: the
email addresses, the password, the profile and its picture, the API tokens, and what each
app keeps (contacts, blocks, conversations, seats at waiting tables, tournament entries,
leaderboard rows: ``accounts.closing``).
"""
from __future__ import annotations

from allauth.account.models import EmailAddress
from django.db import transaction

from ..closing import closing_obstacles, closing_steps_run
from ..models import ApiToken, User
from ..timezones import DEFAULT_TIME_ZONE
from .profile import avatar_file_delete
from .tokens import api_token_revoke


class ClosingError(ValueError):
    """The account cannot be closed now; the message says why."""


def account_close(*, user: User) -> None:
    """Close ``user``'s account for good. Refused (``ClosingError``, nothing changed) while an
    app holds it back (a game in play)."""
    with transaction.atomic():
        # (no key update: a pairing that seats this player at that moment, under the
        # tournaments' pairing lock, inserts rows that point at them, which a plain FOR
        # UPDATE would hold up while this transaction waits for that lock)
        locked = User.objects.select_for_update(no_key=True).get(pk=user.pk)
        if not locked.is_active:
            raise ClosingError("This account is closed already.")
        obstacles = closing_obstacles(locked)
        if obstacles:
            raise ClosingError(" ".join(obstacles))
        closing_steps_run(locked)
        tokens = ApiToken.objects.filter(user=locked)
        for token_id in tokens.filter(revoked_at__isnull=True).values_list("pk", flat=True):
            api_token_revoke(user=locked, token_id=token_id)  # its open sockets close
        tokens.delete()
        EmailAddress.objects.filter(user=locked).delete()
        avatar = locked.avatar.name if locked.avatar else ""
        locked.is_active = False
        locked.set_unusable_password()
        locked.email = ""
        locked.first_name = locked.last_name = ""
        locked.display_name = locked.bio = locked.country = ""
        locked.avatar = ""
        locked.time_zone = DEFAULT_TIME_ZONE
        locked.save()
        if avatar:
            storage = User._meta.get_field("avatar").storage
            transaction.on_commit(lambda: avatar_file_delete(storage, avatar))
    user.is_active = False
