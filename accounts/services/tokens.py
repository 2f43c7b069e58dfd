"""Personal API tokens (docs/bot-api.md, "Tokens"): made with a name and scopes, the secret
shown once, only its SHA-256 kept; revoked for ever."""
from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from core.channels import TOKEN_REVOKED, send_after_commit, token_group
from core.text import CONTROLS_MESSAGE, has_controls

from ..conf import accounts_settings
from ..models import ApiToken, User

# The secret's visible start: "gin_" and a few random characters, shown in the list so the
# owner can tell tokens apart (the whole secret is never shown again).
TOKEN_PREFIX = "gin_"
PREFIX_LENGTH = len(TOKEN_PREFIX) + 6


class TokenError(ValueError):
    """A token that cannot be made or revoked, with a message for the person asking."""


def token_hash(raw_token: str) -> str:
    """The stored form of a token's secret (hex SHA-256)."""
    return hashlib.sha256(raw_token.encode("utf-8", "surrogatepass")).hexdigest()


def api_token_create(*, user: User, name: str, scopes: list[str]) -> tuple[ApiToken, str]:
    """Make a token for ``user``; returns it and its secret (shown once, never stored).

    Refused (``TokenError``) for an empty or too long name, no scope, an unknown scope,
    ``bot:play`` on an account that is not a bot, or when the account already holds the
    maximum of live tokens (``ACCOUNTS_API_TOKENS_MAX``).
    """
    name = " ".join((name or "").split())
    max_name = int(accounts_settings.get("API_TOKEN_NAME_MAX"))
    if not name:
        raise TokenError("Give the token a name, so you can tell it apart later.")
    if has_controls(name):
        raise TokenError(CONTROLS_MESSAGE)
    if len(name) > max_name:
        raise TokenError(f"The name is too long ({len(name)} characters; at most {max_name}).")
    chosen = sorted(set(scopes))
    if not chosen:
        raise TokenError("Choose at least one scope.")
    unknown = [s for s in chosen if s not in ApiToken.SCOPES]
    if unknown:
        raise TokenError(f"Unknown scope: {', '.join(unknown)}.")
    if ApiToken.SCOPE_BOT_PLAY in chosen and not user.is_bot:
        raise TokenError("Only a bot account may have a token that plays as a bot (bot:play).")
    limit = int(accounts_settings.get("API_TOKENS_MAX"))
    raw = TOKEN_PREFIX + secrets.token_urlsafe(32)
    with transaction.atomic():
        # The user's row lock serialises two creations, so the count cannot be overrun.
        User.objects.select_for_update().filter(pk=user.pk).first()
        live = ApiToken.objects.filter(user=user, revoked_at__isnull=True).count()
        if live >= limit:
            raise TokenError(
                f"You already have {live} tokens; the limit is {limit}. Revoke one first."
            )
        token = ApiToken.objects.create(
            user=user, name=name, scopes=chosen, key_hash=token_hash(raw),
            prefix=raw[:PREFIX_LENGTH],
        )
    return token, raw


def api_token_revoke(*, user: User, token_id: int) -> ApiToken:
    """Revoke ``user``'s token ``token_id`` (again is harmless). Another user's token or an
    unknown id: ``ApiToken.DoesNotExist``, nothing changed."""
    with transaction.atomic():
        token = ApiToken.objects.select_for_update().get(pk=token_id, user=user)
        if token.revoked_at is None:
            token.revoked_at = timezone.now()
            token.save(update_fields=["revoked_at"])
            # the sockets a program opened with it close at once (4401)
            send_after_commit(token_group(token.pk), TOKEN_REVOKED)
    return token


def api_token_touch(*, token: ApiToken) -> None:
    """Record that ``token`` was used now, at most once per ``ACCOUNTS_API_LAST_USED_EVERY``
    seconds (a call per move must not be a write per move)."""
    now = timezone.now()
    every = timedelta(seconds=int(accounts_settings.get("API_LAST_USED_EVERY")))
    if token.last_used is not None and now - token.last_used < every:
        return
    ApiToken.objects.filter(pk=token.pk).update(last_used=now)
    token.last_used = now
