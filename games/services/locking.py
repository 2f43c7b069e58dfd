"""The table row, locked, and its seats; the seat of a user; running a side effect after the
commit.
"""
from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from django.db import connection, transaction
from django.db.models import Field, Model
from django.utils import timezone

from core import wire
from core.prepared import prepared_cursor

from ..exceptions import (
    AlreadySeated,
    GameServiceError,
    LeftGame,
    NotOpen,
    NotSeated,
    TableNotFound,
)
from ..models import Room, Seat, Table, TableAction, TableStatus
from ..selectors.tables import invite_too_late, table_access

# What the holder of a private table's invite link is told once its game has started.
PRIVATE_STARTED = "This private game has started: it is for its players alone."

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser

    from accounts.models import User

M = TypeVar("M", bound=Model)


@functools.cache
def _sql_names() -> dict[str, str]:
    """Quoted table and column names of the two written-out queries (fixed per process)."""
    from django.contrib.auth import get_user_model

    q = connection.ops.quote_name
    return {
        "table": q(Table._meta.db_table), "seat": q(Seat._meta.db_table),
        "room": q(Room._meta.db_table), "user": q(get_user_model()._meta.db_table),
        "action": q(TableAction._meta.db_table), "index": q("index"),
    }


def _user_with_names(
    user_id: int | None, username: str | None, display_name: str | None, is_bot: Any
) -> User | None:
    """The user row as ``from_db`` builds it with only the columns the query read (id,
    username, display name, whether a bot account: what frames show); Django loads any other
    field on first access, and ``save`` writes only loaded fields, so the instance is safe
    to use anywhere."""
    from django.contrib.auth import get_user_model

    if user_id is None:
        return None
    return get_user_model().from_db(
        connection.alias, ["id", "username", "display_name", "is_bot"],
        (user_id, username, display_name, bool(is_bot)),
    )


def _read_column(instance: Model, column: str) -> Any:
    """A column a raw query read besides the model's fields: ``raw()`` sets it on the
    instance as a plain attribute, which no model declares."""
    return instance.__dict__[column]


# Every move reads the table and its seats inside the row lock, so these two queries are
# written out: building them with the ORM (joins with select_related) cost more CPU than the
# rest of a move. The instances are ordinary models; related rows are loaded with only the
# fields frames use (the others load on access).


def lock_table(table_id: int) -> Table:
    """The table row, locked (only that row), with its room and creator."""
    try:
        pk = int(table_id)
    except (ValueError, TypeError):
        raise TableNotFound() from None
    n = _sql_names()
    lock = " FOR UPDATE OF t" if connection.features.has_select_for_update_of else ""
    rows = list(Table.objects.raw(
        f"SELECT t.*, r.slug AS room_slug, r.name AS room_name, u.username AS creator_username,"
        f" u.display_name AS creator_display_name, u.is_bot AS creator_is_bot"
        f" FROM {n['table']} t"
        f" JOIN {n['room']} r ON r.id = t.room_id LEFT JOIN {n['user']} u"
        f" ON u.id = t.created_by_id WHERE t.id = %s{lock}", [pk],
    ))
    if not rows:
        raise TableNotFound()
    table = rows[0]
    table.room = Room.from_db(connection.alias, ["id", "slug", "name"],
                              (table.room_id, _read_column(table, "room_slug"),
                               _read_column(table, "room_name")))
    if table.created_by_id is not None:
        table.created_by = _user_with_names(table.created_by_id,
                                            _read_column(table, "creator_username"),
                                            _read_column(table, "creator_display_name"),
                                            _read_column(table, "creator_is_bot"))
    return table


def _from_row(
    model: type[M], values: Sequence[Any], columns: Sequence[Field[Any, Any]]
) -> M:
    """An instance of ``model`` from the values of its concrete fields (in ``columns``'
    order) as the database returned them, converted as the ORM converts them (SQLite's
    dates are text, its booleans numbers; JSON is parsed)."""
    converted = []
    for (col, converters), value in zip(_converters(model, columns), values, strict=True):
        for convert in converters:
            value = convert(value, col, connection)
        converted.append(value)
    return model.from_db(connection.alias, [f.attname for f in columns], converted)


@functools.cache
def _converters(
    model: type[Model], columns: Sequence[Field[Any, Any]]
) -> list[tuple[Any, list[Any]]]:
    """Each column's expression and the ORM's converters of its values, looked up once per
    process (they depend on the field and the database backend only, not on the row: asked
    per row and field, the look-ups were a tenth of a move's service time)."""
    found = []
    for field in columns:
        col = field.get_col(model._meta.db_table)
        found.append((col, connection.ops.get_db_converters(col)
                      + col.get_db_converters(connection)))
    return found


def lock_table_with_seats(table_id: int, *, lock: bool = True) -> tuple[Table, list[Seat]]:
    """``lock_table`` and ``load_seats`` in one statement (what every move reads): one row
    per seat, the table's columns on each, its state (the one large column) on the first
    row only. Raises ``TableNotFound``. ``lock=False``: the same read without the row lock
    (``read_table_with_seats``)."""
    try:
        pk = int(table_id)
    except (ValueError, TypeError):
        raise TableNotFound() from None
    n = _sql_names()
    q = connection.ops.quote_name
    tcols, scols = Table._meta.concrete_fields, Seat._meta.concrete_fields
    first = f"s.{n['index']} IS NULL OR s.{n['index']} = 0"
    select = [
        f"CASE WHEN {first} THEN t.{q(f.column)} END" if f.name == "state"
        else f"t.{q(f.column)}" for f in tcols
    ] + ["r.slug", "r.name", "cu.username", "cu.display_name", "cu.is_bot"]
    select += [f"s.{q(f.column)}" for f in scols] + ["su.username", "su.display_name",
                                                     "su.is_bot"]
    for_update = (" FOR UPDATE OF t" if lock and connection.features.has_select_for_update_of
                  else "")
    with prepared_cursor() as cursor:
        cursor.execute(
            f"SELECT {', '.join(select)} FROM {n['table']} t"
            f" JOIN {n['room']} r ON r.id = t.room_id"
            f" LEFT JOIN {n['user']} cu ON cu.id = t.created_by_id"
            f" LEFT JOIN {n['seat']} s ON s.table_id = t.id"
            f" LEFT JOIN {n['user']} su ON su.id = s.user_id"
            f" WHERE t.id = %s ORDER BY s.{n['index']}{for_update}", [pk],
        )
        rows = cursor.fetchall()
    if not rows:
        raise TableNotFound()
    nt, ns = len(tcols), len(scols)
    row = rows[0]
    table = _from_row(Table, row[:nt], tcols)
    slug, name, creator, creator_name, creator_is_bot = row[nt:nt + 5]
    table.room = Room.from_db(connection.alias, ["id", "slug", "name"],
                              (table.room_id, slug, name))
    if table.created_by_id is not None:
        table.created_by = _user_with_names(table.created_by_id, creator, creator_name,
                                            creator_is_bot)
    seats = []
    for row in rows:
        values = row[nt + 5:nt + 5 + ns]
        if values[0] is None:  # no seat (the LEFT JOIN's empty row)
            continue
        seat = _from_row(Seat, values, scols)
        seat.table = table
        if seat.user_id is not None:
            seat.user = _user_with_names(seat.user_id, *row[nt + 5 + ns:])
        seats.append(seat)
    return table, seats


def read_table_with_seats(table_id: int) -> tuple[Table, list[Seat]]:
    """The table (with its room and creator) and its seats (with their users' names), in
    one statement and not locked: what a socket's open reads (``presence.table_open``)."""
    return lock_table_with_seats(table_id, lock=False)


def load_seats(table: Table) -> list[Seat]:
    n = _sql_names()
    seats = list(Seat.objects.raw(
        f"SELECT s.*, u.username AS user_username, u.display_name AS user_display_name,"
        f" u.is_bot AS user_is_bot FROM {n['seat']} s LEFT JOIN {n['user']} u ON u.id = s.user_id"
        f" WHERE s.table_id = %s ORDER BY s.{n['index']}", [table.pk],
    ))
    for seat in seats:
        if seat.user_id is not None:
            seat.user = _user_with_names(seat.user_id, _read_column(seat, "user_username"),
                                         _read_column(seat, "user_display_name"),
                                         _read_column(seat, "user_is_bot"))
    return seats


def insert_action(*, table_id: int, version: int, seat: int, action: str, source: str,
                  client_id: str) -> bool:
    """Store a player's action with its move id; False, storing nothing, if the seat has
    used that id at this table already (the unique constraint ``action_unique_client_id``).

    One statement instead of a look-up and an insert, and no error to recover from: a failed
    insert would abort the transaction (on PostgreSQL) unless wrapped in a savepoint, which
    costs two statements more. ``ON CONFLICT DO NOTHING ... RETURNING`` is understood by
    PostgreSQL and SQLite (3.35 and later)."""
    with prepared_cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {_sql_names()['action']} (table_id, version, seat, action, source,"
            " client_id, created_at) VALUES (%s, %s, %s, %s, %s, %s, %s)"
            " ON CONFLICT DO NOTHING RETURNING id",
            [table_id, version, seat, action, source, client_id,
             TableAction._meta.get_field("created_at").get_db_prep_value(
                 timezone.now(), connection)],
        )
        return cursor.fetchone() is not None


def update_table(table: Table, fields: Sequence[str]) -> None:
    """``table.save(update_fields=fields)`` written out: one UPDATE of those columns (a
    field with ``auto_now`` takes the time now, as ``save`` gives it). What every move does
    last, so it skips the ORM's query building and signals (no receiver listens to a table's
    save) and encodes a JSON column with orjson (``core.wire.dumps``: the same JSON; about a
    fifth of the ORM save's time was ``json.dumps`` of the state, py-spy under
    ``bench/ws_load.py``)."""
    columns, values = [], []
    for name in fields:
        field = Table._meta.get_field(name)
        assert isinstance(field, Field) and field.concrete and not field.primary_key, name
        value = field.pre_save(table, add=False)  # the value, or now for ``auto_now``
        if field.get_internal_type() == "JSONField":
            value = None if value is None else wire.dumps(value)
        else:
            value = field.get_db_prep_save(value, connection)
        columns.append(f"{connection.ops.quote_name(field.column)} = %s")
        values.append(value)
    with prepared_cursor() as cursor:
        cursor.execute(f"UPDATE {_sql_names()['table']} SET {', '.join(columns)} WHERE id = %s",
                       [*values, table.pk])


def update_seat_presence(seat: Seat) -> None:
    """``seat.save(update_fields=["connected", "last_seen"])`` written out (one UPDATE; no
    receiver listens to a seat's save): what every seated socket's open writes."""
    values, columns = [], []
    for name in ("connected", "last_seen"):
        field = Seat._meta.get_field(name)
        assert isinstance(field, Field) and field.column, name
        values.append(field.get_db_prep_save(getattr(seat, field.attname), connection))
        columns.append(f"{connection.ops.quote_name(field.column)} = %s")
    with prepared_cursor() as cursor:
        cursor.execute(f"UPDATE {_sql_names()['seat']} SET {', '.join(columns)} WHERE id = %s",
                       [*values, seat.pk])


def seat_of(seats: list[Seat], user: User | AnonymousUser | None) -> Seat | None:
    if user is None or not user.is_authenticated:
        return None
    return next((s for s in seats if s.user_id == user.pk), None)


def may_know_of(table: Table, user: User | AnonymousUser | None, invite: str = "") -> bool:
    """Whether ``user`` may learn that ``table`` exists: the table page's and socket's own rule
    (``selectors.table_access``: a public table, or a private one's creator and players, and
    whoever holds its link unless someone there blocks them or is blocked by them)."""
    return table_access(table, user, invite)[0]


def lock_table_in(table_id: int, status: str,
                  refusal: Exception | Callable[[Table], Exception], *,
                  user: User | AnonymousUser | None = None, invite: str = "") -> Table:
    """The locked table (``lock_table``) if it is in ``status``; otherwise ``refusal`` is raised
    (or what ``refusal(table)`` gives: the words for the state it is in). With ``user`` (a
    person's request), a private table they may not know of is ``TableNotFound`` first, before
    any refusal that would tell its state."""
    table = lock_table(table_id)
    if user is not None and not may_know_of(table, user, invite):
        if invite_too_late(table, invite):  # (its link told them of it: say why)
            raise NotOpen(PRIVATE_STARTED)
        raise TableNotFound()
    if table.status != status:
        raise refusal if isinstance(refusal, Exception) else refusal(table)
    return table


# What sitting down at or leaving a table no longer waiting says, by its state. (Two people
# pressing "Take a seat" at once: the second had read only "The game has already started";
# "resign instead" to a table whose game is over sent them after a game that had ended.)
TOO_LATE = {"sit": ("Someone took the last seat just before you: the game has started. You "
                    "can watch it.", "This table's game is over: it takes no more players."),
            "leave": ("The game has started: resign instead.",
                      "This table's game is over: there is no seat to leave.")}


def too_late(what: str, table: Table) -> NotOpen:
    return NotOpen(TOO_LATE[what][table.status != TableStatus.PLAYING])


def sit_too_late(user: User, table: Table) -> GameServiceError:
    """Why ``user`` may not sit at ``table``, no longer open: a player already seated there
    holds their seat (they had read "Someone took the last seat just before you")."""
    if Seat.objects.filter(table=table, user=user).exists():
        return AlreadySeated()
    return too_late("sit", table)


def require_seat(
    seats: list[Seat], user: User | AnonymousUser | None, message: str | None = None
) -> Seat:
    """The user's seat; ``NotSeated`` (with ``message``, if given) when they hold none, and
    ``LeftGame`` when they left this game and a computer plays their seat on."""
    mine = seat_of(seats, user)
    if mine is None:
        if user is not None and user.is_authenticated and any(
                s.left_user_id == user.pk for s in seats):
            raise LeftGame()
        raise NotSeated(message)
    return mine


def after_commit(fn: Callable[[], object]) -> None:
    """Run ``fn`` after the commit. ``robust``: a failing side effect (a broker or channel
    layer that is down) is logged and never turns a committed move into an error; the sweep
    and the clients' snapshots recover what it would have done."""
    transaction.on_commit(fn, robust=True)
