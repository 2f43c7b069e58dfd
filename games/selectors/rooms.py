"""Reads of the lobby and the rooms: who is online, the public tables waiting and playing (as
each viewer may see them: not the tables of people a block joins them to), the counts, and a
player's own tables."""
from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db.models import Count, Exists, F, OuterRef, Prefetch, Q
from django.utils import timezone

from .. import hooks
from ..models import Room, Seat, Table, TableStatus, grace_seconds


def room_online(room: Room) -> list[dict[str, str]]:
    """Users seen on the room page or connected at one of its public tables in the last 30 s
    (a private table's players are not shown: the list would tell who plays whom there)."""
    return rooms_online([room])[room.pk]


def rooms_online(rooms: list[Room]) -> dict[int, list[dict[str, str]]]:
    """``room_online`` of each of ``rooms``, by room id: one read of the cache and one query
    for them all (the lobby asked each of its rooms in turn)."""
    now = timezone.now()
    people: dict[int, dict[str, str]] = {room.pk: {} for room in rooms}
    keys = {f"games:room-online:{room.slug}": room.pk for room in rooms}
    for key, seen in cache.get_many(list(keys)).items():
        for username, name, ts in (seen or {}).values():
            if ts > now.timestamp() - 30:
                people[keys[key]][username] = name
    seated = Seat.objects.filter(
        table__room__in=list(people), table__private=False,
        table__status__in=(TableStatus.OPEN, TableStatus.PLAYING),
        connected=True, last_seen__gte=now - timedelta(seconds=60), user__isnull=False,
    ).select_related("user").annotate(room_id=F("table__room"))
    for seat in seated:
        people[seat.room_id][seat.user.username] = seat.user.public_name
    return {pk: [{"username": u, "name": n} for u, n in sorted(found.items())]
            for pk, found in people.items()}


def visible_people(online: list[dict[str, str]], viewer: Any,
                   hidden: frozenset[int] | None = None) -> dict[str, int]:
    """Of the people in ``online`` lists (``room_online``), those ``viewer`` may see, as user
    ids by username: not the people ``viewer`` blocked or was blocked by
    (``hooks.hidden_senders``), nor an account closed or deleted in the last 30 s. The room
    page's list and the lobby's counts both read it, so a count never tells a blocked person
    that someone is hidden from them. ``hidden``: ``hooks.hidden_senders(viewer)`` if read."""
    if not online:
        return {}
    if hidden is None:
        hidden = hooks.hidden_senders(viewer)
    return dict(get_user_model().objects.filter(
        username__in={p["username"] for p in online}, is_active=True
    ).exclude(pk__in=hidden).values_list("username", "pk"))


def rooms_overview(viewer: Any = None) -> list[dict[str, Any]]:
    """The lobby's rooms: how many people ``viewer`` sees online in each (``visible_people``),
    its open and playing public tables (those ``viewer`` sees: ``room_tables``)."""
    hidden = hooks.hidden_senders(viewer)
    public = Table.objects.filter(private=False,
                                  status__in=(TableStatus.OPEN, TableStatus.PLAYING))
    if hidden:  # (a table with anyone a block joins to the viewer is not in their lists)
        public = public.exclude(seats__user__in=hidden)
    counts = {room: (waiting, playing) for room, waiting, playing in public.values("room")
              .annotate(waiting=Count("pk", filter=Q(status=TableStatus.OPEN)),
                        playing=Count("pk", filter=Q(status=TableStatus.PLAYING)
                                      & ~_left_by_people()))
              .values_list("room", "waiting", "playing")}
    rooms = list(Room.objects.all())
    online = rooms_online(rooms)
    visible = visible_people([p for people in online.values() for p in people], viewer,
                             hidden)
    out = []
    for room in rooms:
        out.append({
            "slug": room.slug, "name": room.name, "mode": room.mode,
            "description": room.description, "url": room.get_absolute_url(),
            "online": sum(p["username"] in visible for p in online[room.pk]),
            "open_tables": counts.get(room.pk, (0, 0))[0],
            "playing_tables": counts.get(room.pk, (0, 0))[1],
        })
    return out


def _table_row(table: Table) -> dict[str, Any]:
    seats = sorted(table.seats.all(), key=lambda s: s.index)
    bots = Seat.bot_names(seats)
    return {
        "id": table.pk, "url": table.get_absolute_url(), "mode": table.mode,
        "mode_name": table.get_mode_display(), "seat_count": table.seat_count,
        "target": table.target, "rated": table.rated,
        "seconds_per_turn": table.seconds_per_turn, "status": table.status,
        "free_seats": sum(1 for s in seats if s.is_empty),
        "players": [
            {"name": s.user.public_name if s.user_id else bots[s.index],
             "bot_level": s.bot_level, "user_id": s.user_id}
            for s in seats if not s.is_empty
        ],
        "created_at": table.created_at.isoformat().replace("+00:00", "Z"),
    }


def _tables(**filters):
    return (
        Table.objects.filter(**filters)
        .select_related("room")
        .prefetch_related(Prefetch("seats", queryset=Seat.objects.select_related("user")))
    )


def with_ratings(rows: list[dict[str, Any]], mode: str) -> list[dict[str, Any]]:
    """Put each player's rating label in ``mode`` (``games.hooks.rating_labels``) on the
    player dicts of table rows, as ``rating`` (None for computers); ``user_id`` is dropped."""
    people = [p for row in rows for p in row["players"]]
    labels = hooks.rating_labels([p["user_id"] for p in people if p["user_id"]], mode)
    for p in people:
        p["rating"] = labels.get(p.pop("user_id"))
    return rows


def room_tables(room: Room, filters: dict[str, Any] | None = None, viewer: Any = None,
                hidden: frozenset[int] | None = None) -> dict[str, list[dict[str, Any]]]:
    """The room's public tables, waiting and playing, newest first. ``filters`` (the room's
    filter form, ``RoomFilterForm``): ``rated`` (True/False), ``seconds_per_turn``,
    ``seat_count``; a missing or None one is not applied. A waiting table that admits only
    players rated within a range says so (``range``); ``yours``: ``viewer`` holds a seat
    there; ``can_join``: ``viewer`` may take its free seat (a player, not seated there, in
    its range). Not the tables of anyone ``viewer`` blocks or is blocked by
    (``hooks.hidden_senders``): a block hides each from the other in every room, and neither
    may sit with the other (``services.table_sit``)."""
    public = _tables(room=room, private=False).filter(
        **{k: v for k, v in (filters or {}).items() if v is not None})
    if hidden is None:
        hidden = hooks.hidden_senders(viewer)
    if hidden:
        public = public.exclude(seats__user__in=hidden)
    waiting = list(public.filter(status=TableStatus.OPEN).order_by("-created_at")[:50])
    ranges = hooks.seat_ranges(waiting, viewer)
    player = viewer is not None and viewer.is_authenticated and not viewer.is_bot
    rows = []
    for table in waiting:
        row = _table_row(table)
        row["range"] = ranges.get(table.pk)
        # (not at their own table, nor for a visitor or a bot account, who may not sit)
        yours = player and any(p["user_id"] == viewer.pk for p in row["players"])
        row["yours"] = yours
        row["can_join"] = (player and not yours and bool(row["free_seats"])
                           and (row["range"] or {}).get("fits") is not False)
        rows.append(row)
    return {
        "open": with_ratings(rows, room.mode),
        "playing": with_ratings([_table_row(t) for t in public.filter(
            status=TableStatus.PLAYING).exclude(_left_by_people())
            .order_by("-started_at")[:50]], room.mode),
    }


def room_payload(room: Room, filters: dict[str, Any] | None = None,
                 viewer: Any = None) -> dict[str, Any]:
    """The room page's lists (``room_tables``) and who is online there: everyone in the room
    but the people ``viewer`` blocked or was blocked by (``hooks.hidden_senders``)."""
    online = room_online(room)
    hidden = hooks.hidden_senders(viewer)  # (read once, for both lists)
    ids = visible_people(online, viewer, hidden)
    online = [p for p in online if p["username"] in ids]
    labels = hooks.rating_labels(ids.values(), room.mode) if online else {}
    for p in online:
        p["rating"] = labels.get(ids.get(p["username"]))
    return {
        "room": {"slug": room.slug, "name": room.name, "mode": room.mode},
        **room_tables(room, filters, viewer, hidden),
        "online": online,
        "online_count": len(online),
    }


def user_live_tables(user) -> list[dict[str, Any]]:
    """The user's own tables (Your tables, on the Play page): those they hold a seat at,
    waiting or in progress, private ones included (with the invite link, which only their
    players and creator see), newest first."""
    if not user.is_authenticated:
        return []
    tables = list(
        _tables(seats__user=user, status__in=(TableStatus.OPEN, TableStatus.PLAYING))
        .order_by("-created_at").distinct()[:20]
    )
    rows = []
    for table in tables:
        row = _table_row(table)
        mine = next((s for s in table.seats.all() if s.user_id == user.pk), None)
        alone = not any(s.user_id and s.user_id != user.pk for s in table.seats.all())
        url = row["url"] + (f"?invite={table.invite_token}" if table.private else "")
        row.update({
            "url": url, "private": table.private, "room_name": table.room.name,
            "waiting": table.status == TableStatus.OPEN,
            "your_turn": (table.status == TableStatus.PLAYING and mine is not None
                          and table.deadline_seat == mine.index
                          and table.turn_deadline is not None),
            # Close on a waiting table: cancel it when nobody else sits there, else leave it.
            "close_label": ("Cancel" if alone else "Leave")
            if table.status == TableStatus.OPEN else "Resign",
        })
        rows.append(row)
    return rows


def _left_by_people():
    """Tables against the computer whose every person is away past the grace period: not
    "Playing now" (the sweep closes them after ``GAMES_COMPUTER_TABLE_LEFT``)."""
    since = timezone.now() - timedelta(seconds=grace_seconds())
    people = Seat.objects.filter(table=OuterRef("pk"), user__isnull=False)
    return Q(Exists(Seat.objects.filter(table=OuterRef("pk"), bot_level__isnull=False))) & ~Q(
        Exists(people.filter(Q(last_seen__gte=since) | Q(last_seen__isnull=True)))
    )
