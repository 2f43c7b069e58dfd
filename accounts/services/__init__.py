"""Writes to users, their profiles, their API tokens and their bot status, one module per
concern: ``profile`` (the public profile, alerts and preferences), ``tokens`` (personal API
tokens), ``bots`` (becoming a bot account), ``closing`` (closing an account). Callers use
the names exported here."""
from .bots import BotConversionError, bot_account_convert
from .closing import ClosingError, account_close
from .profile import (
    ALERT_FIELDS,
    PROFILE_TEXT_FIELDS,
    alert_preferences_update,
    bots_may_challenge_update,
    profile_update,
)
from .tokens import (
    TokenError,
    api_token_create,
    api_token_revoke,
    api_token_touch,
    token_hash,
)

__all__ = [
    "ALERT_FIELDS",
    "PROFILE_TEXT_FIELDS",
    "BotConversionError",
    "ClosingError",
    "TokenError",
    "account_close",
    "alert_preferences_update",
    "api_token_create",
    "api_token_revoke",
    "api_token_touch",
    "bot_account_convert",
    "bots_may_challenge_update",
    "profile_update",
    "token_hash",
]
