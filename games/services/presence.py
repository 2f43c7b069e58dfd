"""Who is at a table (seat connections, pings, the grace period) and who is looking at a room."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from celery import current_app
from django.core.cache import cache
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from core.channels import Outbox
from core.locks import CACHE_ERRORS

from .. import conf, hooks, seat_sockets, selectors, watchers
from ..exceptions import TableNotFound
from ..models import Room, Seat, Table, TableStatus, grace_seconds
from .clock import clock_resume_read
from .locking import (
    after_commit,
    load_seats,
    read_table_with_seats,
    seat_of,
    update_seat_presence,
)
from .publish import publish_presence

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser

    from accounts.models import User


def seat_presence(*, table_id: int, user: User | AnonymousUser | None, connected: bool,
                  outbox: Outbox | None = None, conn: str | None = None) -> bool:
    """Mark the user's seat at this table (dis)connected; True if they hold a seat. The
    presence frame goes into ``outbox`` when the caller gives one (a table socket sends it
    from its event loop: no trip from this thread back to the loop and its wait). With the
    socket's ``conn``, a close leaves the seat connected while another socket of the same
    player at the table is live (``games.seat_sockets``: a second tab closed)."""
    if user is None or not user.is_authenticated:
        return False
    if conn is not None:
        if connected:
            seat_sockets.hold(table_id, user.pk, conn)
        elif seat_sockets.drop(table_id, user.pk, conn):
            return True  # (still at the table in another tab)
    with transaction.atomic():
        table = Table.objects.filter(pk=table_id).first()
        if table is None:
            return False
        seats = load_seats(table)
        mine = seat_of(seats, user)
        if mine is None:
            return False
        mine.connected = connected
        mine.last_seen = timezone.now()
        mine.save(update_fields=["connected", "last_seen"])
        # (at a finished table too, while a rematch may be made: an offer lapses with its
        # player's leaving, and the others' panel says so)
        if table.shows_presence:
            publish_presence(table, seats, outbox=outbox)
        if not connected and table.status == TableStatus.PLAYING:
            # The task by its name: games.tasks calls the services, never the other way round.
            task = current_app.signature("games.table_presence", args=(table_id,))
            countdown = grace_seconds() + 1
            after_commit(lambda: task.apply_async(countdown=countdown))
    return True


@dataclass(frozen=True)
class TableOpen:
    """What a table socket's open needs: whether it may connect, its seat, the chat senders
    hidden from its user (known before any chat line reaches it) and its snapshot."""

    allowed: bool
    # refused: the invite link of a private table whose game has started (its holder knew of
    # it: the page says why, not "no such table")
    too_late: bool = False
    seat: int | None = None
    hidden: frozenset[int] = frozenset()
    snapshot: dict[str, Any] | None = None


def table_open(*, table_id: int, user: User | AnonymousUser | None, invite: str,
               outbox: Outbox, watch_only: bool = False,
               conn: str | None = None) -> TableOpen | None:
    """A table socket opens: the access check (a private table needs a seat, its creator or
    the invite), then for a seated player the seat marked connected (its presence frame
    into ``outbox``) and a clock stopped by a lost frame started again, and the snapshot.
    All of it from ONE read of the table and its seats (``read_table_with_seats``): the open
    read the table four times before (the access check, the presence write, the clock and
    the snapshot, each its own thread trip). None when there is no such table. With
    ``watch_only`` (a bot account's session: it plays through the API) a player of the table
    opens it as a spectator: its seat is neither marked connected nor shown. A seated
    player's socket ``conn`` is held as one of the seat's (``games.seat_sockets``).

    The read takes no row lock (the presence write never did): a move committed after it
    reaches the socket as its frame, which the caller's groups, joined before this call,
    hold until the snapshot has been sent."""
    try:
        table, seats = read_table_with_seats(table_id)
    except TableNotFound:
        return None
    allowed, seat = selectors.table_access(table, user, invite, seats=seats)
    if not allowed:
        return TableOpen(allowed=False, too_late=selectors.invite_too_late(table, invite))
    if watch_only:
        seat = None
    hidden = hooks.hidden_senders(user)
    mine = seat_of(seats, user) if seat is not None else None
    if mine is not None:
        if conn is not None and mine.user_id is not None:
            seat_sockets.hold(table_id, mine.user_id, conn)
        mine.connected = True
        mine.last_seen = timezone.now()
        update_seat_presence(mine)
        if table.shows_presence:
            publish_presence(table, seats, outbox=outbox)
        clock_resume_read(table, seat)
    return TableOpen(allowed=True, seat=seat, hidden=hidden,
                     snapshot=selectors.snapshot_of(table, seats, user, seat, hidden))


def table_watch(*, table_id: int, conn: str, on: bool, user_id: int | None = None,
                outbox: Outbox | None = None) -> int:
    """A spectator's socket ``conn`` (of the account ``user_id``, None for an anonymous
    visitor) starts (``on``) or stops watching the table; everyone at it is told the new
    count (in a presence frame). Returns the count."""
    count = (watchers.watch if on else watchers.unwatch)(table_id, conn, user_id)
    table = Table.objects.select_related("room", "created_by").filter(pk=table_id).first()
    if table is not None:
        publish_presence(table, load_seats(table), outbox=outbox)
    return count


def seat_heartbeat(*, table_id: int, user: User | AnonymousUser | None,
                   conn: str | None = None) -> bool:
    """A ping from a player's socket (``conn``, held on as one of the seat's:
    ``games.seat_sockets``): they are here. Cheap: one UPDATE at most every 5 s, and a
    presence frame only when the seat comes back (it was shown disconnected or gone).
    Returns True when presence was published."""
    if user is None or not user.is_authenticated:
        return False
    if conn is not None:
        seat_sockets.hold(table_id, user.pk, conn)
    now = timezone.now()
    mine = Seat.objects.filter(table_id=table_id, user=user)
    fresh = now - timedelta(seconds=5)
    changed = mine.filter(
        Q(last_seen__lt=fresh) | Q(last_seen__isnull=True) | Q(connected=False)
    )
    seat = changed.only("id", "user_id", "connected", "last_seen").first()
    if seat is None:  # seen less than 10 s ago: nothing to do
        return False
    if seat.connected and not seat.is_gone(now):
        Seat.objects.filter(pk=seat.pk).update(last_seen=now)
        return False
    with transaction.atomic():
        # Compare and set: of two racing pings (two tabs) only one publishes.
        if not Seat.objects.filter(
            pk=seat.pk, connected=seat.connected, last_seen=seat.last_seen
        ).update(last_seen=now, connected=True):
            return False
        table = Table.objects.select_related("room", "created_by").filter(pk=table_id).first()
        if table is None or not table.shows_presence:
            return False
        publish_presence(table, load_seats(table))
    return True


def table_presence_publish(*, table_id: int) -> None:
    """Send the seats' presence again (run after the grace period so ``gone`` shows)."""
    table = Table.objects.filter(pk=table_id).first()
    if table is None or not table.is_live:
        return
    with transaction.atomic():
        publish_presence(table, load_seats(table))


# The sweep's presence cursor (in the cache): the seats whose player crossed the grace period
# up to ``at`` (and, at that instant, up to seat ``seat``) have had their table's presence
# published. Lost with the cache, it falls back to the last minute (a publish again is harmless).
PRESENCE_CURSOR = "games:presence-cursor"


def tables_presence_due(now: datetime) -> int:
    """For the sweep: publish the presence of the tables where a seated player crossed the
    grace period since the last pass (so their opponents may claim the game), at most
    ``GAMES_PRESENCE_PER_SWEEP`` a pass in the order they crossed; the rest go on the next
    pass. After a site-wide outage that is every seat at once: one pass must not publish
    100,000 tables while deadlines wait (``bench/sweep_scale.py``). Returns the tables
    published."""
    target = now - timedelta(seconds=grace_seconds())
    try:
        cursor = cache.get(PRESENCE_CURSOR)
    except CACHE_ERRORS:  # the cache is down: the sweep goes on without its cursor
        cursor = None
    at, seat = (cursor if cursor is not None else (target - timedelta(seconds=60), 0))
    at = max(at, target - timedelta(seconds=600))  # a sweep stopped long: not ancient history
    limit = conf.get("PRESENCE_PER_SWEEP")
    # A table has at most four seats: this many crossings hold ``limit`` tables or all there are.
    crossed = list(
        Seat.objects.filter(
            table__status=TableStatus.PLAYING, user__isnull=False, last_seen__lt=target,
        ).filter(Q(last_seen__gt=at) | Q(last_seen=at, pk__gt=seat))
        .order_by("last_seen", "pk").values_list("table_id", "last_seen", "pk")[:4 * limit]
    )
    published: set[int] = set()
    cursor = (target, 0)  # every crossing up to now handled, unless the limit stops us first
    for table_id, last_seen, seat_pk in crossed:
        if table_id not in published:
            if len(published) == limit:
                break
            table_presence_publish(table_id=table_id)
            published.add(table_id)
        cursor = (last_seen, seat_pk)
    else:
        if len(crossed) < 4 * limit:
            cursor = (target, 0)
    try:
        cache.set(PRESENCE_CURSOR, cursor, 3600)
    except CACHE_ERRORS:
        pass
    return len(published)


def room_presence_mark(*, room: Room, user: User | AnonymousUser | None) -> None:
    """Remember that ``user`` is looking at ``room`` (kept in the cache for 30 s)."""
    if user is None or not user.is_authenticated:
        return
    key = f"games:room-online:{room.slug}"
    now = timezone.now().timestamp()
    online = cache.get(key) or {}
    online = {uid: v for uid, v in online.items() if v[2] > now - 30}
    online[user.pk] = (user.username, user.public_name, now)
    cache.set(key, online, 60)
