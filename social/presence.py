"""Presence: who is online, who is playing at which table, and when others were last seen.

Every open notification socket (``/ws/notify/``, one per browser tab) is a *connection*
registered in the shared cache under its user with a deadline. The socket sends a heartbeat
(``ping``) every ``SOCIAL_HEARTBEAT`` seconds, which pushes the deadline
``SOCIAL_PRESENCE_TTL`` seconds ahead. A user is online while at least one connection has a
deadline in the future, so a disconnect that never runs (a crashed process, a Daphne restart,
a phone going to sleep) cannot leave anyone online for ever: readers ignore stale
connections, and :func:`presence_sweep` (a periodic Celery task) announces the users whose
last connection lapsed and records their "last seen".

The connections live in the shared connection store (``core.connections``, which the games'
watchers use too): with Redis as the cache (production, several Daphne processes) a user's
connections are a Redis hash updated in MULTI transactions, so two tabs opening or closing at the
same moment in two processes agree on whether the user came online or went offline. Without
Redis (the embedded default: one Daphne process, whose workers share its file cache) the same
logic runs under a process lock on that cache.

"Last seen" is persisted in :class:`social.models.LastSeen` when the last connection closes and,
at most every ``SOCIAL_LAST_SEEN_WRITE_EVERY`` seconds, on heartbeats.

Hook for live play. ``social.receivers`` calls these on the ``games.signals`` announcements
(``player_seated``, ``player_left``, ``game_finished``); other code may call them directly::

    from social.presence import presence_set_playing, presence_clear_playing

    presence_set_playing(user_id, table_id, table_url)   # the user sat down at a table
    presence_table_started(user_id, table_id)            # its game started (was waiting)
    presence_clear_playing(user_id, table_id)            # the user left it / the game ended

``presence_set_playing`` marks the user as "playing at table ``table_id``" (the contacts page
shows a "watch" link to ``table_url``) for up to ``PLAYING_TTL`` seconds unless it is called
again or cleared; both notify the user's contacts live (after the current transaction commits,
if any). :func:`presence_playing` reads it back, :func:`presence_of` returns the full state of
many users at once.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import UTC, datetime

from django.core.cache import cache
from django.db import transaction

from core.connections import ConnectionStore, connection_store

from . import conf

PLAYING_TTL = 6 * 3600
ONLINE = "online"
PLAYING = "playing"
OFFLINE = "offline"

_CONNS = "social:presence:conns:{}"
_PLAYING = "social:presence:playing:{}"
_INDEX = "social:presence:index"
_SEEN_GUARD = "social:presence:seen:{}"


@dataclass(frozen=True)
class Presence:
    state: str
    table_id: int | None = None
    table_url: str | None = None
    last_seen: datetime | None = None
    # at a table still waiting for players (its game not started): "Waiting at a table"
    waiting: bool = False

    def as_frame(self) -> dict:
        """The ``presence`` fields; a private table (no ``table_url``) is not named."""
        return {
            "state": self.state,
            "table": (
                {"id": self.table_id, "url": self.table_url, "waiting": self.waiting}
                if self.state == PLAYING and self.table_url else None
            ),
            "last_seen": self.last_seen.isoformat() if self.last_seen else None,
        }


# --- Connections ----------------------------------------------------------------------------

def _store() -> ConnectionStore:
    return connection_store()


def _conns(user_id: int) -> str:
    return _CONNS.format(user_id)


def _kept() -> int:
    """How long the store keeps a user's sockets after their last change."""
    return int(conf.get("PRESENCE_TTL")) * 2


def _deadlines(store: ConnectionStore, user_ids: list[int]) -> dict[int, list[float]]:
    found = store.read([_conns(uid) for uid in user_ids])
    return {uid: list(conns.values()) for uid, conns in zip(user_ids, found, strict=True)}


# --- Last seen ------------------------------------------------------------------------------

def _persist_last_seen(user_id: int, when: float) -> None:
    from .models import LastSeen

    LastSeen.objects.update_or_create(
        user_id=user_id, defaults={"at": datetime.fromtimestamp(when, tz=UTC)}
    )


# --- Connection lifecycle (called by the notification consumer) ---------------------------

def _hold(user_id: int, conn: str, now: float) -> bool:
    """Hold ``conn`` open for another ``PRESENCE_TTL`` (a new connection or a heartbeat);
    True when this made the user come online (none of theirs was held before)."""
    store = _store()
    was_online = bool(store.hold(_conns(user_id), conn, now + conf.get("PRESENCE_TTL"),
                                 _kept(), now))
    if not was_online:
        store.index_add(_INDEX, user_id)
    return not was_online


def presence_connect(user_id: int, conn: str) -> bool:
    """Register a new connection. Returns True when this made the user come online."""
    now = time.time()
    came_online = _hold(user_id, conn, now)
    _seen(user_id, now)  # (a process that cannot see the connections reads this)
    return came_online


def _seen(user_id: int, now: float) -> None:
    """Write "last seen" at most every ``LAST_SEEN_WRITE_EVERY`` seconds per user."""
    if cache.add(_SEEN_GUARD.format(user_id), 1, conf.get("LAST_SEEN_WRITE_EVERY")):
        _persist_last_seen(user_id, now)


def presence_heartbeat(user_id: int, conn: str) -> bool:
    """Refresh a connection. Returns True if the user had lapsed and is online again."""
    now = time.time()
    came_online = _hold(user_id, conn, now)
    _seen(user_id, now)
    return came_online


def presence_leaving(user_id: int, conn: str) -> float:
    """A connection closed: hold it ``PRESENCE_LEAVE_GRACE`` seconds more, so a page change
    (one socket closed, the next page's opened) leaves the user online and tells their
    contacts nothing. Returns the grace: call ``presence_disconnect`` once it has passed (a
    process that stops before then leaves the entry to lapse: ``presence_sweep``)."""
    grace = float(conf.get("PRESENCE_LEAVE_GRACE"))
    if grace > 0:
        now = time.time()
        _store().hold(_conns(user_id), conn, now + grace, _kept(), now)
    return grace


def presence_disconnect(user_id: int, conn: str) -> bool:
    """Drop a connection. Returns True when this was the user's last one (now offline)."""
    now = time.time()
    store = _store()
    if store.drop(_conns(user_id), conn, _kept(), now):
        return False  # still online
    store.index_remove(_INDEX, user_id)
    _persist_last_seen(user_id, now)
    return True


def presence_sweep() -> list[int]:
    """Find users whose connections all lapsed without a disconnect; mark them offline.

    Records their last seen (the time of their last heartbeat), announces them offline to
    their contacts and returns their ids. Safe to run concurrently and repeatedly.
    """
    now = time.time()
    store = _store()
    ttl = conf.get("PRESENCE_TTL")
    members = store.index_members(_INDEX)
    gone = []
    for uid, deadlines in _deadlines(store, members).items():
        if any(d > now for d in deadlines):
            continue
        store.index_remove(_INDEX, uid)
        # A tab may have connected since we looked: then the user stays in the index.
        if any(d > time.time() for d in _deadlines(store, [uid])[uid]):
            store.index_add(_INDEX, uid)
            continue
        _persist_last_seen(uid, (max(deadlines) - ttl) if deadlines else now)
        gone.append(uid)
    for uid in gone:
        broadcast_presence(uid)
    return gone


# --- Playing (hook for the games app) -------------------------------------------------------

def presence_set_playing(user_id: int, table_id: int, url: str, waiting: bool = False) -> None:
    """Mark ``user_id`` as playing at table ``table_id`` (watchable at ``url``; an empty
    ``url`` for a private table, which the contacts are then not told of); ``waiting`` while
    the table waits for players."""
    cache.set(_PLAYING.format(user_id),
              {"table_id": int(table_id), "url": str(url), "waiting": bool(waiting)}, PLAYING_TTL)
    transaction.on_commit(lambda: broadcast_presence(user_id))


def presence_table_started(user_id: int, table_id: int) -> None:
    """The table ``user_id`` waited at has started its game: "waiting" becomes "playing"
    (a mark naming another table, or none, is left alone)."""
    key = _PLAYING.format(user_id)
    current = cache.get(key)
    if not current or current.get("table_id") != int(table_id) or not current.get("waiting"):
        return
    cache.set(key, {**current, "waiting": False}, PLAYING_TTL)
    transaction.on_commit(lambda: broadcast_presence(user_id))


def presence_clear_playing(user_id: int, table_id: int | None = None) -> None:
    """The user is no longer playing at a table (at ``table_id`` only, when given: a user
    who already sat down elsewhere keeps that)."""
    key = _PLAYING.format(user_id)
    if table_id is not None:
        current = cache.get(key)
        if not current or current.get("table_id") != int(table_id):
            return
    cache.delete(key)
    transaction.on_commit(lambda: broadcast_presence(user_id))


def presence_show_other_tables(user_ids: list[int], table_id: int) -> None:
    """Of ``user_ids``, who no longer play at ``table_id`` (its game ended, or they left it
    before the start), those who hold a seat at another public table (waiting for players,
    or playing) are shown there, one query for all: an audit's player, seated at two
    waiting tables, showed "Online" once a game elsewhere ended, or once he left one."""
    from games.models import Seat, TableStatus

    if not user_ids:
        return
    seats = (Seat.objects.filter(user_id__in=user_ids, table__private=False,
                                 table__status__in=(TableStatus.OPEN, TableStatus.PLAYING))
             .exclude(table_id=table_id).select_related("table")
             .order_by("user_id", "-table__updated_at"))
    marked: set[int] = set()
    for seat in seats:
        if seat.user_id in marked:
            continue
        marked.add(seat.user_id)
        table = seat.table
        presence_set_playing(seat.user_id, table.pk, table.get_absolute_url(),
                             waiting=table.status == TableStatus.OPEN)


def presence_playing(user_id: int) -> dict | None:
    """``{"table_id": ..., "url": ...}`` while the user plays at a table, else None."""
    return cache.get(_PLAYING.format(user_id))


# --- Reading --------------------------------------------------------------------------------

def _connected(user_ids: list[int]) -> set[int]:
    """Those of ``user_ids`` holding at least one live connection (one cache round trip)."""
    now = time.time()
    deadlines = _deadlines(_store(), user_ids)
    return {uid for uid in user_ids if any(d > now for d in deadlines.get(uid, []))}


def presence_of(user_ids) -> dict[int, Presence]:
    """The presence of each user in ``user_ids``: a constant number of cache/DB round trips."""
    from .models import LastSeen

    user_ids = list(dict.fromkeys(int(u) for u in user_ids))
    if not user_ids:
        return {}
    live = _connected(user_ids)
    playing = cache.get_many([_PLAYING.format(uid) for uid in user_ids])
    offline = [uid for uid in user_ids if uid not in live]
    seen = dict(
        LastSeen.objects.filter(user_id__in=offline).values_list("user_id", "at")
    ) if offline else {}
    result = {}
    for uid in user_ids:
        play = playing.get(_PLAYING.format(uid))
        if play:
            result[uid] = Presence(PLAYING, play["table_id"], play["url"],
                                   waiting=bool(play.get("waiting")))
        elif uid not in offline:
            result[uid] = Presence(ONLINE)
        else:
            result[uid] = Presence(OFFLINE, last_seen=seen.get(uid))
    return result


def presence_reachable(user_ids) -> set[int]:
    """Those of ``user_ids`` with a page of the site open (``games.hooks.reachable``: a
    waiting table can call them to it, an arena pairs them). A live connection in the cache.
    Only a process whose cache sees no connection at all (a cache of its own: a ``manage.py``
    command, or a restart) goes by a "last seen" recent enough that the user was connected
    then (open sockets write it at least every ``LAST_SEEN_WRITE_EVERY`` seconds): that
    window also took in players who had left up to two minutes before, and an arena paired
    them (seen from outside)."""
    from .models import LastSeen

    user_ids = list(dict.fromkeys(int(u) for u in user_ids))
    if not user_ids:
        return set()
    found = _connected(user_ids)
    if _store().index_any(_INDEX):  # this process sees the sockets: they are the answer
        return found
    recent = datetime.fromtimestamp(
        time.time() - conf.get("LAST_SEEN_WRITE_EVERY") - conf.get("PRESENCE_TTL"), tz=UTC)
    rest = [uid for uid in user_ids if uid not in found]
    if rest:
        found.update(LastSeen.objects.filter(user_id__in=rest, at__gte=recent)
                     .values_list("user_id", flat=True))
    return found


def broadcast_presence(user_id: int) -> None:
    """Tell the contacts of ``user_id`` their current presence (frame ``presence``)."""
    from accounts.models import User

    from . import frames
    from .models import Contact
    from .notify import notify_users

    user = User.objects.filter(pk=user_id).only("id", "username", "display_name").first()
    if user is None:
        return
    contacts = list(Contact.objects.filter(user_id=user_id).values_list("contact_id", flat=True))
    if not contacts:
        return
    state = presence_of([user_id])[user_id]
    notify_users(contacts, frames.presence_changed(user, state))
