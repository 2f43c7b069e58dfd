"""Reads of live play: a table, who may see it, its snapshot and chat, score sheets (the
lobby's and the rooms' lists: ``rooms``)."""
from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import Q

from core.secrets_compare import same_secret
from games import engine as E
from games.replay import OUTCOMES, names_at

from .. import frames, hooks, records, watchers
from ..models import (
    ActionSource,
    ChatMessage,
    Game,
    Seat,
    Table,
    TableAction,
    TableStatus,
)

CHAT_HISTORY = 50


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
