"""Becoming a bot account (docs/bot-api.md, "Bot accounts"): irreversible, and only for an
account with no games yet (its games as a person would otherwise change pools)."""
from __future__ import annotations

from django.db import transaction

from ..activity import user_has_played
from ..models import User


class BotConversionError(ValueError):
    """The account cannot become a bot; the message says why."""


def bot_account_convert(*, user: User) -> User:
    """Make ``user`` a bot account for ever. Refused (``BotConversionError``) if it has
    played or sits at a table; a bot already is left as it is."""
    with transaction.atomic():
        locked = User.objects.select_for_update().get(pk=user.pk)
        if locked.is_bot:
            user.is_bot = True
            return user
        if user_has_played(locked):
            raise BotConversionError(
                "This account has games already: only an account with no games may become "
                "a bot. Make a new account for your bot."
            )
        locked.is_bot = True
        locked.save(update_fields=["is_bot"])
    user.is_bot = True
    return user
