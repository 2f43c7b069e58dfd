"""Reads of live play: lobby and room lists, who is online, tables, snapshots, chat, score
sheets."""
from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import connection
from django.db.models import Count, Exists, OuterRef, Prefetch, Q
from django.utils import timezone

from core.secrets_compare import same_secret
from games import engine as E
from games.replay import OUTCOMES, names_at

from .. import frames, hooks, records, watchers
from ..models import (
    ActionSource,
    ChatMessage,
    Game,
    Room,
    Seat,
    Table,
    TableAction,
    TableStatus,
    grace_seconds,
)

CHAT_HISTORY = 50


def room_online(room: Room) -> list[dict[str, str]]:
    """Users seen on the room page or connected at one of its public tables in the last 30 s
    (a private table's players are not shown: the list would tell who plays whom there)."""
    now = timezone.now()
    people: dict[str, str] = {}
    for username, name, ts in (cache.get(f"games:room-online:{room.slug}") or {}).values():
        if ts > now.timestamp() - 30:
            people[username] = name
    seated = Seat.objects.filter(
        table__room=room, table__status__in=(TableStatus.OPEN, TableStatus.PLAYING),
        table__private=False, connected=True, last_seen__gte=now - timedelta(seconds=60),
        user__isnull=False,
    ).select_related("user")
    for seat in seated:
        people[seat.user.username] = seat.user.public_name
    return [{"username": u, "name": n} for u, n in sorted(people.items())]


def visible_people(online: list[dict[str, str]], viewer: Any) -> dict[str, int]:
    """Of the people in ``online`` lists (``room_online``), those ``viewer`` may see, as user
    ids by username: not the people ``viewer`` blocked or was blocked by
    (``hooks.hidden_senders``), nor an account closed or deleted in the last 30 s. The room
    page's list and the lobby's counts both read it, so a count never tells a blocked person
    that someone is hidden from them."""
    if not online:
        return {}
    from django.contrib.auth import get_user_model

    return dict(get_user_model().objects.filter(
        username__in={p["username"] for p in online}, is_active=True
    ).exclude(pk__in=hooks.hidden_senders(viewer)).values_list("username", "pk"))


def rooms_overview(viewer: Any = None) -> list[dict[str, Any]]:
    """The lobby's rooms: how many people ``viewer`` sees online in each (``visible_people``),
    its open and playing public tables."""
    counts = {
        r["pk"]: r for r in Room.objects.annotate(
            open_tables=Count("tables", filter=Q(tables__status=TableStatus.OPEN,
                                                 tables__private=False)),
        ).values("pk", "open_tables")
    }
    playing = dict(
        Table.objects.filter(status=TableStatus.PLAYING, private=False)
        .exclude(_left_by_people()).values("room").annotate(n=Count("pk"))
        .values_list("room", "n")
    )
    rooms = list(Room.objects.all())
    online = {room.pk: room_online(room) for room in rooms}
    visible = visible_people([p for people in online.values() for p in people], viewer)
    out = []
    for room in rooms:
        out.append({
            "slug": room.slug, "name": room.name, "mode": room.mode,
            "description": room.description, "url": room.get_absolute_url(),
            "online": sum(p["username"] in visible for p in online[room.pk]),
            "open_tables": counts[room.pk]["open_tables"],
            "playing_tables": playing.get(room.pk, 0),
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


def room_tables(room: Room, filters: dict[str, Any] | None = None,
                viewer: Any = None) -> dict[str, list[dict[str, Any]]]:
    """The room's public tables, waiting and playing, newest first. ``filters`` (the room's
    filter form, ``RoomFilterForm``): ``rated`` (True/False), ``seconds_per_turn``,
    ``seat_count``; a missing or None one is not applied. A waiting table that admits only
    players rated within a range says so (``range``); ``yours``: ``viewer`` holds a seat
    there; ``can_join``: ``viewer`` may take its free seat (a player, not seated there, in
    its range)."""
    public = _tables(room=room, private=False).filter(
        **{k: v for k, v in (filters or {}).items() if v is not None})
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
    ids = visible_people(online, viewer)
    online = [p for p in online if p["username"] in ids]
    labels = hooks.rating_labels(ids.values(), room.mode) if online else {}
    for p in online:
        p["rating"] = labels.get(ids.get(p["username"]))
    return {
        "room": {"slug": room.slug, "name": room.name, "mode": room.mode},
        **room_tables(room, filters, viewer),
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


def players_came(table_id: int) -> dict[int, bool]:
    """User id → has that player come to the table: opened it (a sign of life), sat down
    there, or moved? Players the site seats itself (a tournament's match, a challenge) have
    not until they open it. Two queries, whatever the number of seats."""
    moved = set(TableAction.objects.filter(table_id=table_id, source=ActionSource.PLAYER)
                .values_list("seat", flat=True).distinct())
    return {user_id: last_seen is not None or index in moved
            for index, user_id, last_seen in Seat.objects.filter(
                table_id=table_id, user__isnull=False).values_list("index", "user_id", "last_seen")}


def table_with_seats(table_id: int) -> Table | None:
    return (
        Table.objects.select_related("room", "created_by", "rematch_table")
        .filter(pk=table_id).first()
    )


def table_access(table: Table, user, invite: str | None,
                 seats: list[Seat] | None = None) -> tuple[bool, int | None]:
    """(may connect, seat index or None). Private tables need a seat or, while they wait for
    players, the invite token: a started private game is its players' alone (the link let
    anyone watch it, and read its seed at the end). ``seats``: the table's seats if read."""
    seat = None
    if user is not None and user.is_authenticated:
        if seats is not None:
            seat = next((s.index for s in seats if s.user_id == user.pk), None)
        else:
            seat = Seat.objects.filter(table=table, user=user).values_list(
                "index", flat=True).first()
    if seat is not None:
        return True, seat
    if _open_without_link(table, user, seated=False):
        return True, None
    if _left(table, user, seats):  # a player who left a game that goes on: they may watch
        return True, None
    if table.status != TableStatus.OPEN:
        return False, None
    ok = same_secret(invite, table.invite_token)
    if ok and hooks.seat_refusal(table, user, _people_at(table, seats)):
        ok = False  # blocked either way by someone there: refused like a wrong invite link
    return ok, None


def _left(table: Table, user, seats: list[Seat] | None) -> bool:
    """Whether ``user`` left this table's game while it went on (a computer plays their
    seat): they stay one of its players for what they may see."""
    if user is None or not user.is_authenticated:
        return False
    if seats is not None:
        return any(s.left_user_id == user.pk for s in seats)
    return Seat.objects.filter(table=table, left_user=user).exists()


def invite_too_late(table: Table, invite: str | None) -> bool:
    """Whether ``invite`` is the link of a private table whose game has started (or ended):
    it no longer opens it (``table_access``), and its holder may be told why, since the link
    told them the table exists."""
    return (table.private and table.status != TableStatus.OPEN
            and same_secret(invite, table.invite_token))


def _open_without_link(table: Table, user, seated: bool) -> bool:
    """Who opens a table without its invite link: anyone a public one; a private one, its
    players, and its creator while it waits for players (one who left it before the start
    is no player of its game)."""
    if not table.private or seated:
        return True
    return (user is not None and user.is_authenticated and user.pk == table.created_by_id
            and table.status == TableStatus.OPEN)


def tables_open_to(user, tables: list[Table]) -> set[int]:
    """The ids of ``tables`` whose page ``user`` may open without an invite link (the rule of
    ``table_access``), for a list of many tables: one query, for the seats at the private
    ones."""
    private = [t.pk for t in tables if t.private]
    seated: set[int] = set()
    if private and user is not None and user.is_authenticated:
        seated = set(Seat.objects.filter(Q(user=user) | Q(left_user=user),
                                         table_id__in=private)
                     .values_list("table_id", flat=True))
    return {t.pk for t in tables if _open_without_link(t, user, t.pk in seated)}


def _people_at(table: Table, seats: list[Seat] | None = None) -> list[int]:
    """The creator and the seated players of a table (user ids), from ``seats`` if given."""
    if seats is not None:
        return [table.created_by_id, *(s.user_id for s in seats if s.user_id is not None)]
    seated = Seat.objects.filter(table=table, user__isnull=False).values_list("user_id", flat=True)
    return [table.created_by_id, *seated]


def recent_chat(table: Table, hidden: frozenset[int] | set[int] = frozenset(),
                seats: list[Seat] | None = None) -> list[dict[str, Any]]:
    """The last lines of the table's chat, leaving out those written by ``hidden`` users.
    ``seats``: the table's seats when the caller has read them (else they are read here)."""
    if seats is None:
        seats = list(Seat.objects.filter(table=table, user__isnull=False))
    seat_by_user = {s.user_id: s.index for s in seats if s.user_id is not None}
    # Written out (every snapshot reads it): the ORM's query building was most of its cost.
    # The writers come with the names frames show, and nothing else.
    q = connection.ops.quote_name
    unseen = f" AND m.user_id NOT IN ({', '.join(['%s'] * len(hidden))})" if hidden else ""
    lines = list(ChatMessage.objects.raw(
        f"SELECT m.*, u.username AS writer_username, u.display_name AS writer_display_name"
        f" FROM {q(ChatMessage._meta.db_table)} m JOIN {q(get_user_model()._meta.db_table)} u"
        f" ON u.id = m.user_id WHERE m.table_id = %s{unseen} ORDER BY m.id DESC LIMIT %s",
        [table.pk, *sorted(hidden), CHAT_HISTORY],
    ))
    for m in lines:
        m.user = get_user_model().from_db(
            connection.alias, ["id", "username", "display_name"],
            (m.user_id, m.__dict__["writer_username"], m.__dict__["writer_display_name"]))
    return [frames.chat_data(m, seat_by_user) for m in reversed(lines)]


def table_snapshot(table_id: int, user, seat: int | None,
                   hidden: frozenset[int] | None = None) -> dict[str, Any] | None:
    """The ``snapshot`` frame for a connection (``you`` included). Its chat leaves out the
    users ``hidden`` from ``user`` (``games.hooks.hidden_senders`` when not given)."""
    table = table_with_seats(table_id)
    if table is None:
        return None
    if hidden is None:
        hidden = hooks.hidden_senders(user)
    seats = list(Seat.objects.filter(table=table).select_related("user").order_by("index"))
    return snapshot_of(table, seats, user, seat, hidden)


def snapshot_of(table: Table, seats: list[Seat], user, seat: int | None,
                hidden: frozenset[int]) -> dict[str, Any]:
    """The ``snapshot`` frame of a table and its seats already read (every seat, in index
    order, with their users); its chat leaves out the ``hidden`` senders."""
    frame = frames.snapshot_frame(table, seats, user=user, seat=seat,
                                  chat=recent_chat(table, hidden, seats))
    frame["watchers"] = watchers.watching(table.pk)  # (the players' "2 watching")
    return frame


def score_sheet(game: Game) -> dict[str, Any]:
    """Hand-by-hand rows and per-column totals for the game page (three columns in Hollywood).
    Each row: hand number, outcome, winner name, points (``doubled``: by Oklahoma's spade
    upcard), and per column the points each seat scored in it; totals come from the engine's
    result (bonuses included)."""
    players = sorted(game.players.all(), key=lambda p: p.seat)
    names = [p.name for p in players]
    result = (game.final or {}).get("result") or {}
    columns = result.get("columns") or []
    ncols = max(1, len(columns)) if game.mode == "hollywood" else 1

    def scored(hand):
        # the games a hand's points count in: none at all for a Hollywood win after each game
        # it would score in is over (``[]``, not "absent": it had been put in the first game)
        winner = hand.get("winner")
        columns = hand.get("columns")
        if columns is None:  # (a record from before hands kept their columns)
            columns = [0] if winner is not None else []
        return winner, hand.get("points", 0), columns

    totals = E.running_totals(map(scored, game.hands), ncols, len(players))
    # a hand finished after a person left is the computer's that played their seat on
    stand_ins = records.stand_ins(game)
    rows = []
    for hand, cells in zip(game.hands, totals, strict=True):
        winner = hand.get("winner")
        number = hand.get("hand_number", len(rows) + 1)
        now = names_at(names, stand_ins, lambda s, n=number: n > s["after_hands"])
        rows.append({
            "hand": number,
            # as the replay and the table say it ("big gin", "drawn hand", "went out")
            "outcome": OUTCOMES.get(hand.get("outcome", ""), hand.get("outcome", "")),
            "winner": now[winner] if winner is not None and winner < len(now) else None,
            "points": hand.get("points", 0),
            "doubled": winner is not None and (hand.get("multiplier") or 1) > 1,
            "columns": cells,
            # (Hollywood: its points went nowhere, and the row's totals did not move)
            "in_no_game": ncols > 1 and winner is not None and scored(hand)[2] == [],
        })
    return {"names": names, "rows": rows, "columns": columns, "ncols": ncols}
