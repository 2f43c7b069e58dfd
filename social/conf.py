"""Tunable numbers of the social app. Each can be overridden by a ``SOCIAL_<NAME>`` setting;
the defaults live here so the app works with nothing configured."""
from __future__ import annotations

from core.conf import Settings

DEFAULTS: dict[str, int] = {
    # Private messages a sender may send per minute (fixed one-minute windows).
    "MESSAGE_RATE": 10,
    # ... and for accounts younger than NEW_ACCOUNT_AGE seconds.
    "MESSAGE_RATE_NEW_ACCOUNT": 3,
    "NEW_ACCOUNT_AGE": 24 * 3600,
    # Contact requests a user may send per hour.
    "REQUEST_RATE": 30,
    # Table invitations a user may send per minute.
    "INVITE_RATE": 10,
    # Pending invitations older than this (seconds) are treated as expired.
    "INVITE_TTL": 30 * 60,
    # Presence: a connection that sent no heartbeat for this long counts as gone. Clients
    # ping every HEARTBEAT seconds, so one or two lost pings do not flip anybody offline.
    "PRESENCE_TTL": 70,
    "HEARTBEAT": 25,
    # A closed connection counts this many seconds more: going from page to page closes one
    # socket and opens the next, and contacts saw "offline" then "online" at every click.
    "PRESENCE_LEAVE_GRACE": 3,
    # "Last seen" is written to the database at most this often per user while online.
    "LAST_SEEN_WRITE_EVERY": 60,
    # Incoming notification-socket frames: size limit and a per-connection rate limit. A
    # "send" frame carries up to 2,000 characters, which JSON may spell in up to 6 bytes each.
    "FRAME_MAX_BYTES": 16384,
    "FRAMES_PER_MINUTE": 120,
    # Challenges (docs/bot-api.md): pending challenges an account may have sent, and may
    # have waiting for its answer (more are refused with ``too_many_challenges``); how many it
    # may send per minute; how long one stays open before it expires (seconds).
    "CHALLENGES_OPEN_MAX": 5,
    "CHALLENGES_INCOMING_MAX": 20,
    "CHALLENGE_RATE": 20,
    "CHALLENGE_TTL": 10 * 60,
    # Messages per page of conversation history.
    "HISTORY_PAGE": 50,
}


SETTINGS = Settings("SOCIAL", DEFAULTS)
# ``conf.get("NAME")``: the value of ``SOCIAL_NAME`` from settings, else the default above.
get = SETTINGS.get
