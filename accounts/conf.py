"""The ``ACCOUNTS_*`` settings and their defaults: the API tokens' limits (docs/bot-api.md,
"Tokens" and "Rate limits")."""
from __future__ import annotations

from core.conf import Settings

accounts_settings = Settings("ACCOUNTS", {
    # Live (unrevoked) tokens one account may hold: enough for a few bots or scripts, few
    # enough that a leaked session cannot mint thousands.
    "API_TOKENS_MAX": 20,
    # A token's name, shown in its owner's list.
    "API_TOKEN_NAME_MAX": 60,
    # Requests per token per window: 600 a minute is 10 a second, far above one bot
    # playing a few games at a time (one call per move, a move a second or so), low enough
    # to stop a runaway loop. A request over the limit gets 429 with Retry-After.
    "API_RATE_REQUESTS": 600,
    "API_RATE_WINDOW": 60,
    # Requests without a token (the public export) per client address per window.
    "API_ANON_RATE_REQUESTS": 30,
    "API_ANON_RATE_WINDOW": 60,
    # How often (seconds) a token's "last used" time is written: not on every call.
    "API_LAST_USED_EVERY": 30,
})
