"""Writes of live play: tables, seats, moves, clocks, chat and the one finishing path.

Every function is keyword-only and runs in one transaction with the table row locked
(``select_for_update``; SQLite serialises writers with ``transaction_mode=IMMEDIATE``). A change
that clients see bumps ``Table.version``; frames, Celery tasks and signals go out only after
commit. Nothing is cached in memory: the stored state is the truth, so a restarted server
carries on from the last stored action.
"""
from __future__ import annotations

import functools
import logging
import random
import secrets
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import DatabaseError, connection, transaction
from django.db.models import Exists, F, OuterRef, Q
from django.utils import timezone

from games import engine as E

from . import broadcast, frames, hooks, play, signals
from .cache import count_hit
from .exceptions import (
    AlreadySeated,
    CannotClaim,
    ChatEmpty,
    ChatTooLong,
    DuplicateAction,
    Forbidden,
    IllegalAction,
    InvalidAction,
    InvalidSettings,
    NotOpen,
    NotPlaying,
    NotSeated,
    NotYourTurn,
    RateLimited,
    SeatRefused,
    SeatTaken,
    StaleVersion,
    TableFull,
    TableNotFound,
)
from .models import (
    ActionSource,
    ChatMessage,
    Ending,
    Game,
    GamePlayer,
    Heartbeat,
    Room,
    Seat,
    Table,
    TableAction,
    TableStatus,
)

log = logging.getLogger(__name__)

TURN_SECONDS = (0, 15, 30, 60)
CHAT_MAX = 300
ACTION_MAX = 80
CLIENT_ID_MAX = 40
PRIVATE_REFUSAL = "This table is private: you need its invite link."


def _setting(name: str, default):
    return getattr(settings, name, default)


def _bot_delay() -> float:
    low, high = _setting("GAMES_BOT_DELAY", (0.6, 1.5))
    return random.uniform(low, high) if high > 0 else 0.0


@functools.cache
def _sql_names() -> dict[str, str]:
    """Quoted table and column names of the two written-out queries (fixed per process)."""
    from django.contrib.auth import get_user_model

    q = connection.ops.quote_name
    return {
        "table": q(Table._meta.db_table), "seat": q(Seat._meta.db_table),
        "room": q(Room._meta.db_table), "user": q(get_user_model()._meta.db_table),
        "index": q("index"),
    }


def _user_with_names(user_id, username, display_name):
    """The user row as ``from_db`` builds it with only the columns the query read (id,
    username, display name: what frames show); Django loads any other field on first access,
    and ``save`` writes only loaded fields, so the instance is safe to use anywhere."""
    from django.contrib.auth import get_user_model

    if user_id is None:
        return None
    return get_user_model().from_db(
        connection.alias, ["id", "username", "display_name"], (user_id, username, display_name)
    )


# Every move reads the table and its seats inside the row lock, so these two queries are
# written out: building them with the ORM (joins with select_related) cost more CPU than the
# rest of a move. The instances are ordinary models; related rows are loaded with only the
# fields frames use (the others load on access).


def _lock(table_id: int) -> Table:
    """The table row, locked (only that row), with its room and creator."""
    try:
        pk = int(table_id)
    except (ValueError, TypeError):
        raise TableNotFound() from None
    n = _sql_names()
    lock = " FOR UPDATE OF t" if connection.features.has_select_for_update_of else ""
    rows = list(Table.objects.raw(
        f"SELECT t.*, r.slug AS room_slug, r.name AS room_name, u.username AS creator_username,"
        f" u.display_name AS creator_display_name FROM {n['table']} t"
        f" JOIN {n['room']} r ON r.id = t.room_id LEFT JOIN {n['user']} u"
        f" ON u.id = t.created_by_id WHERE t.id = %s{lock}", [pk],
    ))
    if not rows:
        raise TableNotFound()
    table = rows[0]
    table.room = Room.from_db(connection.alias, ["id", "slug", "name"],
                              (table.room_id, table.room_slug, table.room_name))
    if table.created_by_id is not None:
        table.created_by = _user_with_names(table.created_by_id, table.creator_username,
                                      table.creator_display_name)
    return table


def _seats(table: Table) -> list[Seat]:
    n = _sql_names()
    seats = list(Seat.objects.raw(
        f"SELECT s.*, u.username AS user_username, u.display_name AS user_display_name"
        f" FROM {n['seat']} s LEFT JOIN {n['user']} u ON u.id = s.user_id"
        f" WHERE s.table_id = %s ORDER BY s.{n['index']}", [table.pk],
    ))
    for seat in seats:
        if seat.user_id is not None:
            seat.user = _user_with_names(seat.user_id, seat.user_username, seat.user_display_name)
    return seats


def _seat_of(seats: list[Seat], user) -> Seat | None:
    if user is None or not user.is_authenticated:
        return None
    return next((s for s in seats if s.user_id == user.pk), None)


def _lock_in(table_id: int, status: str, refusal: Exception) -> Table:
    """The locked table (``_lock``) if it is in ``status``; otherwise ``refusal`` is raised."""
    table = _lock(table_id)
    if table.status != status:
        raise refusal
    return table


def _seated(seats: list[Seat], user, message: str | None = None) -> Seat:
    """The user's seat; ``NotSeated`` (with ``message``, if given) when they hold none."""
    mine = _seat_of(seats, user)
    if mine is None:
        raise NotSeated(message)
    return mine


def _on_commit(fn) -> None:
    """Run ``fn`` after the commit. ``robust``: a failing side effect (a broker or channel
    layer that is down) is logged and never turns a committed move into an error; the sweep
    and the clients' snapshots recover what it would have done."""
    transaction.on_commit(fn, robust=True)


# ------------------------------------------------------------------------- publishing


def _publish(table: Table, seats: list[Seat], state=None, events=(), last=None) -> None:
    """Queue the ``state`` frames of the table's current version for after the commit."""
    if state is None and table.state:
        state = play.load(table.state)
    meta = frames.table_meta(table)
    seats_d = frames.seats_data(seats)
    clock = frames.clock_data(table, seats)
    humans = [s.index for s in seats if s.user_id is not None]
    table_id, version = table.pk, table.version
    events = tuple(events)

    def send():
        delivered = broadcast.send_state(
            table_id=table_id, version=version, table=meta, seats=seats_d, clock=clock,
            state=state, events=events, last=last, human_seats=humans,
        )
        if delivered is False:
            table_state_undelivered(table_id=table_id, version=version)

    _on_commit(send)


def _publish_presence(table: Table, seats: list[Seat]) -> None:
    meta = frames.table_meta(table)
    seats_d = frames.seats_data(seats)
    table_id = table.pk
    _on_commit(lambda: broadcast.send_presence(table_id=table_id, table=meta, seats=seats_d))


def _announce_seated(table: Table, user_id: int) -> None:
    table_id, url = table.pk, table.get_absolute_url()
    _on_commit(
        lambda: signals.player_seated.send(
            sender=Table, table_id=table_id, user_id=user_id, url=url
        )
    )


# ------------------------------------------------------------------------- clocks and bots


def _set_clock(table: Table, seats: list[Seat], state, prev_to_act: int | None) -> None:
    """Who is on the clock now, and until when (a turn keeps its deadline across actions)."""
    now = timezone.now()
    to_act = state.to_act if state is not None else None
    if table.status != TableStatus.PLAYING or to_act is None:
        table.turn_deadline = None
        table.deadline_seat = None
        table.turn_started_at = None
        return
    if to_act != prev_to_act or table.turn_started_at is None:
        table.turn_started_at = now
    seat = seats[to_act]
    if seat.bot_level is not None:
        # A computer's turn has a deadline too (not shown to clients): if its task is lost
        # (a killed worker, a broker outage), the sweep plays the move when it passes.
        table.turn_deadline = now + timedelta(seconds=_setting("GAMES_BOT_TURN_LIMIT", 8))
        table.deadline_seat = to_act
        return
    if table.seconds_per_turn == 0:
        table.turn_deadline = None
        table.deadline_seat = None
        return
    if to_act == prev_to_act and table.turn_deadline is not None and table.deadline_seat == to_act:
        # The same turn goes on (drew, now discards): keep the deadline, with a moment to act.
        table.turn_deadline = max(table.turn_deadline, now + timedelta(seconds=3))
        return
    extra = _setting("GAMES_FIRST_TURN_EXTRA", 10) if prev_to_act is None else 0
    table.turn_deadline = now + timedelta(seconds=table.seconds_per_turn + extra)
    table.deadline_seat = to_act


def _schedule(table: Table, seats: list[Seat], state) -> None:
    """After commit: the bot's move. (Turn deadlines need no task per turn: the seated
    players' connections apply them when due (``games.consumers``), and the periodic sweep
    applies those of tables nobody is connected to.)"""
    if table.status != TableStatus.PLAYING or state is None or state.to_act is None:
        return
    from . import tasks

    table_id, version = table.pk, table.version
    seat = seats[state.to_act]
    if seat.bot_level is not None:
        delay = _bot_delay()

        def enqueue():
            try:
                tasks.table_bot_move.apply_async(
                    (table_id, version), countdown=delay,
                    retry=True, retry_policy={"max_retries": 2, "interval_start": 0.2,
                                              "interval_step": 0.5},
                )
            except Exception:  # the broker is down: the bot's deadline brings the sweep
                log.exception("could not queue the bot move of table %s", table_id)

        _on_commit(enqueue)


# ------------------------------------------------------------------------- tables


def _validate_settings(*, room: Room, seat_count: int, target: int | None, rated: bool,
                       seconds_per_turn: int, bot_level: int | None,
                       rating_range: int | None = None) -> None:
    low, high = play.seat_limits(room.mode)
    if not (max(low, room.min_seats) <= seat_count <= min(high, room.max_seats)):
        raise InvalidSettings(
            f"Tables in {room.name} have {room.min_seats}"
            + (f" to {room.max_seats}" if room.max_seats != room.min_seats else "")
            + " seats."
        )
    if target is not None and not 50 <= target <= 500:
        raise InvalidSettings("The target score must be between 50 and 500.")
    if rated and not room.allow_rated:
        raise InvalidSettings(f"Games in {room.name} are casual.")
    if rated and bot_level is not None:
        raise InvalidSettings("Games against the computer are casual.")
    if seconds_per_turn not in TURN_SECONDS:
        raise InvalidSettings("Choose 15, 30 or 60 seconds per turn, or untimed.")
    if seconds_per_turn == 0 and bot_level is None:
        raise InvalidSettings("Untimed games are only for playing the computer.")
    if bot_level is not None and bot_level not in play.BOT_LEVELS:
        raise InvalidSettings("Computer levels are 1 to 4.")
    if rating_range is not None and (not rated or not 50 <= rating_range <= 1000):
        raise InvalidSettings("A rating range is for rated tables, from ±50 to ±1000.")


def table_create(
    *, user, room: Room, seat_count: int = 2, target: int | None = None, rated: bool = False,
    seconds_per_turn: int = 30, private: bool = False, bot_level: int | None = None,
    rating_range: int | None = None,
) -> Table:
    """Create a table with ``user`` in seat 0; with ``bot_level`` the other seats get bots
    and the game starts at once."""
    if user is None or not user.is_authenticated:
        raise Forbidden("Log in to create a table.")
    _validate_settings(room=room, seat_count=seat_count, target=target, rated=rated,
                       seconds_per_turn=seconds_per_turn, bot_level=bot_level,
                       rating_range=rating_range)
    with transaction.atomic():
        table = Table.objects.create(
            room=room, mode=room.mode, seat_count=seat_count,
            target=target or play.default_target(room.mode, seat_count),
            rated=rated, seconds_per_turn=seconds_per_turn, private=private,
            invite_token=secrets.token_urlsafe(16) if private else "",
            seed=secrets.randbits(62), created_by=user, version=1, rating_range=rating_range,
        )
        _rated_seat_check(table, user)
        seats = [
            Seat.objects.create(
                table=table, index=i, user=user if i == 0 else None,
                bot_level=bot_level if (i > 0 and bot_level is not None) else None,
                last_seen=timezone.now() if i == 0 else None,
            )
            for i in range(seat_count)
        ]
        state = None
        if bot_level is not None:
            state = _start(table, seats)
        table.save()
        _publish(table, seats, state)
        _schedule(table, seats, state)
        _announce_seated(table, user.pk)
    return table


def play_computer(*, user, mode: str, level: int, seat_count: int = 2,
                  seconds_per_turn: int = 0) -> Table:
    """One click: a table against the computer in the mode's own room, started at once."""
    room = Room.objects.filter(slug=mode).first() or Room.objects.filter(mode=mode).first()
    if room is None:
        raise InvalidSettings("There is no such game.")
    return table_create(
        user=user, room=room, seat_count=seat_count, rated=False,
        seconds_per_turn=seconds_per_turn, private=False, bot_level=level,
    )


def _start(table: Table, seats: list[Seat]):
    """Deal the game (caller saves and publishes)."""
    state = play.new_state(table.mode, table.seed, table.seat_count, table.target)
    table.status = TableStatus.PLAYING
    table.started_at = timezone.now()
    table.state = play.dump(state)
    _set_clock(table, seats, state, prev_to_act=None)
    return state


def _rated_seat_check(table: Table, user) -> None:
    """A rated table may refuse the seat (playban, rating range): ``games.hooks``."""
    if table.rated:
        reason = hooks.rated_seat_refusal(table, user)
        if reason:
            raise SeatRefused(reason)


def _maybe_start(table: Table, seats: list[Seat]):
    if all(not s.is_empty for s in seats):
        return _start(table, seats)
    return None


def table_sit(*, table_id: int, user, seat: int | None = None, invite: str = "") -> Table:
    """Take a seat (the first free one unless ``seat`` is given); the last one starts the game."""
    if user is None or not user.is_authenticated:
        raise Forbidden("Log in to take a seat.")
    with transaction.atomic():
        table = _lock_in(table_id, TableStatus.OPEN, NotOpen())
        if table.seconds_per_turn == 0:
            raise Forbidden("This table is for playing the computer.")
        if table.private and user.pk != table.created_by_id and not (
            invite and secrets.compare_digest(str(invite), table.invite_token)
        ):
            raise Forbidden(PRIVATE_REFUSAL)
        seats = _seats(table)
        if table.private and user.pk != table.created_by_id and hooks.seat_refusal(
            table, user, [table.created_by_id, *(s.user_id for s in seats)]
        ):
            # Blocked either way by someone there: the same words as a wrong invite link.
            raise Forbidden(PRIVATE_REFUSAL)
        if _seat_of(seats, user):
            raise AlreadySeated()
        _rated_seat_check(table, user)
        free = [s for s in seats if s.is_empty]
        if not free:
            raise TableFull()
        if seat is None:
            chosen = free[0]
        else:
            chosen = next((s for s in seats if s.index == seat), None)
            if chosen is None:
                raise SeatTaken("There is no such seat.")
            if not chosen.is_empty:
                raise SeatTaken()
        chosen.user = user
        chosen.connected = False
        chosen.last_seen = timezone.now()
        chosen.timeouts = 0
        chosen.save()
        table.version += 1
        state = _maybe_start(table, seats)
        table.save()
        _publish(table, seats, state)
        _schedule(table, seats, state)
        _announce_seated(table, user.pk)
    return table


def table_leave(*, table_id: int, user) -> Table:
    """Leave before the start. A table left with no player in it is closed."""
    with transaction.atomic():
        table = _lock_in(table_id, TableStatus.OPEN,
                         NotOpen("The game has started: resign instead."))
        seats = _seats(table)
        mine = _seated(seats, user)
        mine.user = None
        mine.connected = False
        mine.last_seen = None
        mine.save()
        table.version += 1
        if not any(s.user_id for s in seats):
            table.status = TableStatus.ABANDONED
            table.finished_at = timezone.now()
        table.save()
        _publish(table, seats)
        user_id = user.pk
        _on_commit(
            lambda: signals.player_left.send(sender=Table, table_id=table.pk, user_id=user_id)
        )
    return table


def table_add_bot(*, table_id: int, user, seat: int, level: int) -> Table:
    """A seated player fills an empty seat with a computer player."""
    if level not in play.BOT_LEVELS:
        raise InvalidSettings("Computer levels are 1 to 4.")
    with transaction.atomic():
        table = _lock_in(table_id, TableStatus.OPEN, NotOpen())
        seats = _seats(table)
        _seated(seats, user, "Only a player at this table may add a computer player.")
        if table.rated:
            raise Forbidden("Rated games are played by people only.")
        chosen = next((s for s in seats if s.index == seat), None)
        if chosen is None:
            raise SeatTaken("There is no such seat.")
        if not chosen.is_empty:
            raise SeatTaken()
        chosen.bot_level = level
        chosen.save()
        table.version += 1
        state = _maybe_start(table, seats)
        table.save()
        _publish(table, seats, state)
        _schedule(table, seats, state)
    return table


# ------------------------------------------------------------------------- moves


def _commit_state(table: Table, seats: list[Seat], state, *, prev_to_act, events, last) -> None:
    """Store the new state (finishing the game if it is over), publish, schedule."""
    if state.is_over:
        _finish(table, seats, state, ending=Ending.NORMAL, loser_seat=None,
                events=events, last=last)
        return
    table.state = play.dump(state)
    _set_clock(table, seats, state, prev_to_act)
    # Moves change only these (a full save would rewrite every column on every move).
    table.save(update_fields=[
        "state", "version", "turn_deadline", "deadline_seat", "turn_started_at", "updated_at",
    ])
    _publish(table, seats, state, events, last)
    _schedule(table, seats, state)


def _store_action(table: Table, seat: int, text: str, source: str, client_id: str = "") -> None:
    table.version += 1
    TableAction.objects.create(
        table=table, version=table.version, seat=seat, action=text, source=source,
        client_id=client_id,
    )


def table_act(
    *, table_id: int, action: Any, expected_version: Any, user=None, seat: int | None = None,
    source: str = ActionSource.PLAYER, client_id: Any = "",
) -> int:
    """Play one move and return the new version.

    ``user`` plays their own seat; the bot task passes ``seat`` with ``source=bot``. Refusals
    raise a ``GameServiceError`` and change nothing: not playing, not seated, a duplicate
    ``client_id``, a stale ``expected_version``, not your turn, unparseable or illegal.
    """
    if not isinstance(action, str) or not action or len(action) > ACTION_MAX:
        raise InvalidAction()
    if not isinstance(client_id, str) or len(client_id) > CLIENT_ID_MAX:
        raise InvalidAction("The move id must be text of at most 40 characters.")
    if isinstance(expected_version, bool) or not isinstance(expected_version, int):
        raise StaleVersion("The move must carry the table version it was made at.")
    with transaction.atomic():
        table = _lock_in(table_id, TableStatus.PLAYING, NotPlaying())
        seats = _seats(table)
        if user is not None:
            mine = _seated(seats, user)
        else:
            mine = next((s for s in seats if s.index == seat), None)
            if mine is None or mine.bot_level is None:
                raise NotSeated()
        if client_id and TableAction.objects.filter(
            table=table, seat=mine.index, client_id=client_id
        ).exists():
            raise DuplicateAction()
        if expected_version != table.version:
            raise StaleVersion()
        state = play.load(table.state)
        if state.to_act != mine.index:
            raise NotYourTurn()
        try:
            text = str(E.Action.parse(action))
            new, events = play.apply(state, text, mine.index)
        except E.InvalidActionError as exc:
            raise InvalidAction(str(exc)) from None
        except E.IllegalActionError as exc:
            raise IllegalAction(str(exc)) from None
        _store_action(table, mine.index, text, source, client_id)
        if source == ActionSource.PLAYER and mine.timeouts:
            mine.timeouts = 0
            mine.save(update_fields=["timeouts"])
        _commit_state(table, seats, new, prev_to_act=mine.index, events=events,
                      last={"seat": mine.index, "action": text, "source": source})
        return table.version


def table_bot_move(*, table_id: int, version: int) -> bool:
    """The bot to act plays, if the table is still at ``version`` (safe to run twice).

    The bot thinks outside the row lock; ``table_act`` then re-checks the version.
    """
    table = Table.objects.filter(pk=table_id).first()
    if table is None or table.status != TableStatus.PLAYING or table.version != version:
        return False
    state = play.load(table.state)
    seat = Seat.objects.filter(table=table, index=state.to_act).first()
    if seat is None or seat.bot_level is None:
        return False
    text = play.bot_action(state, seat.index, seat.bot_level, seed=table.seed ^ version)
    try:
        table_act(table_id=table_id, action=text, expected_version=version, seat=seat.index,
                  source=ActionSource.BOT)
    except (StaleVersion, NotPlaying, NotYourTurn):
        return False
    return True


def _unheard(seat: Seat, now) -> bool:
    """A seat shown connected whose pings have not reached the server for a while, though it
    is not yet gone: the site may have failed to deliver the turn (a database or channel
    layer outage, a web process that died), so its clock must not run out against it."""
    if seat.user_id is None or not seat.connected or seat.last_seen is None:
        return False
    quiet = now - seat.last_seen
    return timedelta(seconds=_setting("GAMES_HEARD_WINDOW", 30)) < quiet and not (
        frames.seat_is_gone(seat, now)
    )


def table_timeout(*, table_id: int) -> bool:
    """The clock ran out: play safe moves for the player to act, or forfeit them after
    ``GAMES_MAX_TIMEOUTS`` timeouts in a row. Does nothing unless the table's stored deadline
    has passed; applying it sets the next turn's deadline (or none), so each deadline applies
    exactly once however often, or however late, it is called (by a socket's timer or the
    sweep).

    A computer's deadline means its move was lost (see ``_set_clock``): it is played now. A
    connected player the server has not heard from lately gets a fresh turn instead of a
    timeout (``_unheard``); once they are gone, timeouts apply as usual."""
    tolerance = timedelta(seconds=0.5)
    with transaction.atomic():
        table = _lock(table_id)
        now = timezone.now()
        if (
            table.status != TableStatus.PLAYING
            or table.turn_deadline is None or table.turn_deadline > now + tolerance
        ):
            return False
        seats = _seats(table)
        state = play.load(table.state)
        seat_index = state.to_act
        if seat_index is None:
            return False
        if seats[seat_index].bot_level is not None:
            bot_version = table.version
        else:
            bot_version = None
            seat = seats[seat_index]
            if _unheard(seat, now):
                table.turn_deadline = now + timedelta(seconds=table.seconds_per_turn)
                table.save(update_fields=["turn_deadline"])
                log.warning("table %s: seat %s is unheard; its turn starts again",
                            table_id, seat_index)
                return False
            return _apply_timeout(table, seats, state, seat)
    # Outside the lock: the bot thinks, then plays through table_act (which re-checks).
    log.warning("table %s: the computer's move at version %s was late; playing it now",
                table_id, bot_version)
    return table_bot_move(table_id=table_id, version=bot_version)


def _apply_timeout(table: Table, seats: list[Seat], state, seat: Seat) -> bool:
    seat_index = seat.index
    seat.timeouts += 1
    seat.save(update_fields=["timeouts"])
    if seat.timeouts >= _setting("GAMES_MAX_TIMEOUTS", 3):
        table.version += 1
        _finish(table, seats, state, ending=Ending.TIMEOUT, loser_seat=seat_index)
        return True
    hand = state.hand_number
    events: list = []
    text = ""
    for _ in range(30):
        text = play.safe_action(state)
        state, new_events = play.apply(state, text, seat_index)
        events.extend(new_events)
        _store_action(table, seat_index, text, ActionSource.TIMEOUT)
        if state.is_over or state.to_act != seat_index or state.hand_number != hand:
            break
    # The turn that timed out is over: the next one (even the same seat's, in a new hand)
    # gets a deadline of its own, without the first turn's extra time.
    table.turn_deadline = None
    _commit_state(table, seats, state, prev_to_act=seat_index, events=events,
                  last={"seat": seat_index, "action": text, "source": ActionSource.TIMEOUT})
    return True


def table_state_undelivered(*, table_id: int, version: int) -> bool:
    """The frames of ``version`` could not be published (the channel layer failed): the
    player to act may not know it is their turn, so their clock stops. It starts again when
    they are shown the table (``table_clock_resume``, from their snapshot) or, if they never
    are, after the grace period (the sweep). A computer's deadline stays: it needs no frame."""
    try:
        return bool(
            Table.objects.filter(
                pk=table_id, version=version, status=TableStatus.PLAYING,
                turn_deadline__isnull=False,
            ).exclude(
                Exists(Seat.objects.filter(
                    table=OuterRef("pk"), index=OuterRef("deadline_seat"),
                    bot_level__isnull=False,
                ))
            ).update(turn_deadline=None)
        )
    except DatabaseError:
        log.exception("could not stop the clock of table %s", table_id)
        return False


def table_clock_resume(*, table_id: int, seat: int | None) -> bool:
    """The player at ``seat`` is being shown the table: if their turn's clock was stopped
    because its frame was lost, it starts now, with the whole turn."""
    if seat is None:
        return False
    stopped = Table.objects.filter(
        pk=table_id, status=TableStatus.PLAYING, turn_deadline__isnull=True,
        deadline_seat=seat, seconds_per_turn__gt=0,
    )
    seconds = stopped.values_list("seconds_per_turn", flat=True).first()
    if seconds is None:
        return False
    deadline = timezone.now() + timedelta(seconds=seconds)
    return bool(stopped.update(turn_deadline=deadline))


def table_resign(*, table_id: int, user) -> Table:
    with transaction.atomic():
        table = _lock_in(table_id, TableStatus.PLAYING, NotPlaying())
        seats = _seats(table)
        mine = _seated(seats, user)
        table.version += 1
        _finish(table, seats, play.load(table.state), ending=Ending.RESIGNATION,
                loser_seat=mine.index)
    return table


def table_claim(*, table_id: int, user) -> Table:
    """End the game when an opponent has been gone longer than the grace period."""
    with transaction.atomic():
        table = _lock_in(table_id, TableStatus.PLAYING, NotPlaying())
        seats = _seats(table)
        mine = _seated(seats, user)
        now = timezone.now()
        gone = [s for s in seats if s.index != mine.index and frames.seat_is_gone(s, now)]
        if not gone:
            raise CannotClaim()
        table.version += 1
        _finish(table, seats, play.load(table.state), ending=Ending.ABANDONMENT,
                loser_seat=gone[0].index)
    return table


def table_rematch(*, table_id: int, user, accept: bool = True) -> Table:
    """Offer (or accept) a rematch; when every human player has, the new table starts.
    ``accept=False`` withdraws or declines: the offers are cleared."""
    with transaction.atomic():
        table = _lock_in(table_id, TableStatus.FINISHED,
                         NotPlaying("A rematch is offered once the game is over."))
        seats = _seats(table)
        mine = _seated(seats, user)
        if table.rematch_table_id:
            return table.rematch_table
        offers = set(table.rematch_offers or [])
        if accept:
            _rated_seat_check(table, user)  # a playban also bars a rated rematch
            offers.add(mine.index)
        else:
            offers.clear()
        table.rematch_offers = sorted(offers)
        table.version += 1
        humans = {s.index for s in seats if s.user_id is not None}
        if accept and humans <= offers:
            new = _rematch_table(table, seats)
            table.rematch_table = new
        table.save()
        _publish(table, seats)
    return table


def _rematch_table(old: Table, seats: list[Seat]) -> Table:
    table = Table.objects.create(
        room=old.room, mode=old.mode, seat_count=old.seat_count, target=old.target,
        rated=old.rated, seconds_per_turn=old.seconds_per_turn, private=old.private,
        rating_range=old.rating_range,
        invite_token=secrets.token_urlsafe(16) if old.private else "",
        seed=secrets.randbits(62), created_by=old.created_by, version=1,
    )
    # Players move one seat round, so the deal order changes between games.
    n = len(seats)
    new_seats = []
    for s in seats:
        new_seats.append(Seat.objects.create(
            table=table, index=(s.index + 1) % n, user=s.user, bot_level=s.bot_level,
            last_seen=timezone.now() if s.user_id else None,
        ))
    new_seats.sort(key=lambda s: s.index)
    state = _start(table, new_seats)
    table.version += 1
    table.save()
    _publish(table, new_seats, state)
    _schedule(table, new_seats, state)
    for s in new_seats:
        if s.user_id:
            _announce_seated(table, s.user_id)
    return table


# ------------------------------------------------------------------------- tables for given players


def table_create_for_players(
    *, room: Room, players: list, target: int | None = None, rated: bool = False,
    seconds_per_turn: int = 30, created_by=None,
) -> Table:
    """Open a table with ``players`` (users, in seat order) already seated and deal at once:
    for apps that pair people themselves (tournaments). Settings are checked as for
    ``table_create``; the players are not marked as connected, so their presence shows
    whether they came. Frames, the first bot task and ``player_seated`` go out after commit."""
    users = list(players)
    if not users or any(u is None or u.pk is None for u in users):
        raise InvalidSettings("Every seat needs a player.")
    if len({u.pk for u in users}) != len(users):
        raise InvalidSettings("A player can take only one seat.")
    _validate_settings(room=room, seat_count=len(users), target=target, rated=rated,
                       seconds_per_turn=seconds_per_turn, bot_level=None)
    with transaction.atomic():
        table = Table.objects.create(
            room=room, mode=room.mode, seat_count=len(users),
            target=target or play.default_target(room.mode, len(users)),
            rated=rated, seconds_per_turn=seconds_per_turn, private=False,
            seed=secrets.randbits(62), created_by=created_by, version=1,
        )
        seats = [Seat.objects.create(table=table, index=i, user=u) for i, u in enumerate(users)]
        state = _start(table, seats)
        table.save()
        _publish(table, seats, state)
        _schedule(table, seats, state)
        for u in users:
            _announce_seated(table, u.pk)
    return table


# ------------------------------------------------------------------------- the end


def _placements(totals: list[int], loser_seat: int | None) -> list[int]:
    """1-based places: the forfeiting seat last, the others by total (ties share)."""
    order = sorted(range(len(totals)), key=lambda i: (i == loser_seat, -totals[i]))
    places = [0] * len(totals)
    for rank, i in enumerate(order):
        prev = order[rank - 1] if rank else None
        same = (prev is not None and totals[prev] == totals[i]
                and (prev == loser_seat) == (i == loser_seat))
        places[i] = places[prev] if same else rank + 1
    return places


def _finish(table: Table, seats: list[Seat], state, *, ending: str, loser_seat: int | None,
            events=(), last=None) -> Game:
    """Store the Game, close the table and announce it (the caller bumped the version)."""
    now = timezone.now()
    result = play.game_result(state) if state.is_over else None
    totals = list(result["totals"]) if result else list(state.scores)
    places = _placements(totals, loser_seat)
    if result is not None and ending == Ending.NORMAL:
        winner = result["winner"]
    else:
        winner = next((i for i, p in enumerate(places) if p == 1), None)
        if places.count(1) > 1:
            winner = None
    actions = [
        {"version": a.version, "seat": a.seat, "action": a.action, "source": a.source,
         "at": a.created_at.isoformat().replace("+00:00", "Z")}
        for a in TableAction.objects.filter(table=table).order_by("version")
    ]
    game = Game.objects.create(
        table=table, mode=table.mode, settings=play.mode_settings(state),
        num_players=table.seat_count, target=table.target, rated=table.rated, seed=table.seed,
        actions=actions, hands=play.hand_results(state),
        final={"result": result, "totals": totals, "hand_points": list(state.scores),
               "places": places},
        ending=ending, loser_seat=loser_seat, winner_seat=winner,
        started_at=table.started_at, finished_at=now,
    )
    bots = frames.bot_names(seats)
    for s in seats:
        GamePlayer.of_game(
            game, private=table.private, seat=s.index, user=s.user, bot_level=s.bot_level,
            name=s.user.public_name if s.user_id else bots.get(s.index, frames.bot_name(0)),
            score=totals[s.index], place=places[s.index],
            won=winner is not None and places[s.index] == 1,
        ).save()
    game.record = _record(game, state, seats)
    game.save(update_fields=["record"])
    table.status = TableStatus.FINISHED
    table.finished_at = now
    table.state = play.dump(state)
    table.turn_deadline = None
    table.deadline_seat = None
    table.save()
    _publish(table, seats, state, events, last)
    game_id, table_id = game.pk, table.pk
    _on_commit(
        lambda: signals.game_finished.send(sender=Game, game_id=game_id, table_id=table_id)
    )
    return game


def _record(game: Game, state, seats: list[Seat]) -> dict[str, Any]:
    """The game record: the engine's ``GameRecord`` (format ``gin-record/1``, replays from the
    seed) with the site's players and how the game ended."""
    names = [s.user.username if s.user_id else f"bot-{play.BOT_LEVEL_KEYS.get(s.bot_level)}"
             for s in seats]
    timestamps = [_ms(a["at"]) for a in game.actions]
    try:
        if state.is_compact:  # the table stores states compact: replay the stored moves
            full = play.replay_moves(game.mode, game.seed, game.num_players, game.target,
                                     [(a["seat"], a["action"]) for a in game.actions])
            if full.to_dict(compact=True) != state.to_dict(compact=True):
                raise E.EngineError("the stored moves do not lead to the table's state")
            state = full
        engine = E.GameRecord.from_state(state, players=names, timestamps=timestamps).to_dict()
    except E.EngineError:  # the stored move list and the state disagree: keep the moves
        log.exception("engine record of game %s failed", game.pk)
        engine = None
    bots = frames.bot_names(seats)
    players = [
        {"seat": s.index, "name": s.user.public_name if s.user_id else bots.get(s.index, ""),
         "username": s.user.username if s.user_id else None, "bot_level": s.bot_level}
        for s in seats
    ]
    # The score sheet as it stood when the game ended: for a game ended by a resignation, a
    # timeout or an abandonment (the engine's result is null) it is the only score there is.
    view = E.spectator_view(state, history="none")
    forfeit = None
    if game.ending != Ending.NORMAL and game.loser_seat is not None:
        forfeit = {**players[game.loser_seat], "reason": game.ending,
                   "after_hands": len(view["score_sheet"]["hands"])}
    return {
        "format": "ginsite-game/1",
        "mode": game.mode,
        "settings": game.settings,
        "num_players": game.num_players,
        "seed": game.seed,
        "players": players,
        "ending": game.ending,
        "loser_seat": game.loser_seat,
        "winner_seat": game.winner_seat,
        "forfeit": forfeit,
        "result": game.final.get("result"),
        "totals": game.final.get("totals"),
        "score_sheet": {**view["score_sheet"], "hands_won": view["hands_won"],
                        "hand_points": list(state.scores)},
        "engine": engine,
    }


def _ms(iso: str) -> int:
    from datetime import datetime

    return int(datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp() * 1000)


def game_finish(*, table_id: int, ending: str, loser_seat: int | None = None) -> Game:
    """End a playing table with ``ending`` from outside play (a tournament's forfeit,
    operators, tests). Live play ends games through ``_finish`` directly, in the transaction
    of the move that ended them; both store the Game, close the table and send
    ``games.signals.game_finished``."""
    if ending not in Ending.values:
        raise InvalidSettings("Unknown ending.")
    with transaction.atomic():
        table = _lock_in(table_id, TableStatus.PLAYING, NotPlaying())
        seats = _seats(table)
        table.version += 1
        return _finish(table, seats, play.load(table.state), ending=ending,
                       loser_seat=loser_seat)


# ------------------------------------------------------------------------- chat, presence


def chat_post(*, table_id: int, user, text: Any) -> ChatMessage:
    if user is None or not user.is_authenticated:
        raise Forbidden("Log in to chat.")
    if not isinstance(text, str):
        raise ChatEmpty()
    text = " ".join(text.split())
    if not text:
        raise ChatEmpty()
    if len(text) > CHAT_MAX:
        raise ChatTooLong()
    limit, window = _setting("GAMES_CHAT_RATE", (5, 10))
    key = f"games:chat-rate:{user.pk}"
    if count_hit(key, window) > limit:
        raise RateLimited()
    table = Table.objects.filter(pk=table_id).first()
    if table is None:
        raise TableNotFound()
    with transaction.atomic():
        message = ChatMessage.objects.create(table=table, user=user, text=text)
        seat_by_user = {
            s.user_id: s.index for s in Seat.objects.filter(table=table, user=user)
        }
        data = frames.chat_data(message, seat_by_user)
        sender_id = user.pk
        _on_commit(
            lambda: broadcast.send_chat(table_id=table.pk, message=data, sender_id=sender_id)
        )
    return message


def seat_presence(*, table_id: int, user, connected: bool) -> bool:
    """Mark the user's seat at this table (dis)connected; True if they hold a seat."""
    if user is None or not user.is_authenticated:
        return False
    with transaction.atomic():
        table = Table.objects.filter(pk=table_id).first()
        if table is None:
            return False
        seats = _seats(table)
        mine = _seat_of(seats, user)
        if mine is None:
            return False
        mine.connected = connected
        mine.last_seen = timezone.now()
        mine.save(update_fields=["connected", "last_seen"])
        if table.is_live:
            _publish_presence(table, seats)
        if not connected and table.status == TableStatus.PLAYING:
            from . import tasks

            countdown = frames.grace_seconds() + 1
            _on_commit(lambda: tasks.table_presence.apply_async((table_id,), countdown=countdown))
    return True


def seat_heartbeat(*, table_id: int, user) -> bool:
    """A ping from a player's socket: they are here. Cheap: one UPDATE at most every 5 s,
    and a presence frame only when the seat comes back (it was shown disconnected or gone).
    Returns True when presence was published."""
    if user is None or not user.is_authenticated:
        return False
    now = timezone.now()
    mine = Seat.objects.filter(table_id=table_id, user=user)
    fresh = now - timedelta(seconds=5)
    changed = mine.filter(
        Q(last_seen__lt=fresh) | Q(last_seen__isnull=True) | Q(connected=False)
    )
    seat = changed.only("id", "user_id", "connected", "last_seen").first()
    if seat is None:  # seen less than 10 s ago: nothing to do
        return False
    if seat.connected and not frames.seat_is_gone(seat, now):
        Seat.objects.filter(pk=seat.pk).update(last_seen=now)
        return False
    with transaction.atomic():
        # Compare and set: of two racing pings (two tabs) only one publishes.
        if not Seat.objects.filter(
            pk=seat.pk, connected=seat.connected, last_seen=seat.last_seen
        ).update(last_seen=now, connected=True):
            return False
        table = Table.objects.select_related("room", "created_by").filter(pk=table_id).first()
        if table is None or not table.is_live:
            return False
        _publish_presence(table, _seats(table))
    return True


def table_presence_publish(*, table_id: int) -> None:
    """Send the seats' presence again (run after the grace period so ``gone`` shows)."""
    table = Table.objects.filter(pk=table_id).first()
    if table is None or not table.is_live:
        return
    with transaction.atomic():
        _publish_presence(table, _seats(table))


def room_presence_mark(*, room: Room, user) -> None:
    """Remember that ``user`` is looking at ``room`` (kept in the cache for 30 s)."""
    if user is None or not user.is_authenticated:
        return
    key = f"games:room-online:{room.slug}"
    now = timezone.now().timestamp()
    online = cache.get(key) or {}
    online = {uid: v for uid, v in online.items() if v[2] > now - 30}
    online[user.pk] = (user.username, user.public_name, now)
    cache.set(key, online, 60)


# ------------------------------------------------------------------------- the sweep


def _sweep_gap(now) -> timedelta | None:
    """Record this run of the sweep; return how long the clocks went unwatched when the
    previous run is older than ``GAMES_OUTAGE_GAP`` (the database, the broker or every worker
    was down), else None."""
    previous = Heartbeat.objects.filter(name="sweep").values_list("at", flat=True).first()
    Heartbeat.objects.update_or_create(name="sweep", defaults={"at": now})
    if previous is None:
        return None
    gap = now - previous
    return gap if gap > timedelta(seconds=_setting("GAMES_OUTAGE_GAP", 10)) else None


def _give_back_time(since, gap: timedelta) -> int:
    """The site was down for ``gap``: every person's turn that was running then gets that
    time back, so nobody's clock runs out because of the site (computers' turns are not
    extended: their deadline brings their move), and every player's last sign of life moves
    on by as much, so nobody looks gone (and claimable) for pings the site could not take."""
    Seat.objects.filter(
        table__status=TableStatus.PLAYING, user__isnull=False, last_seen__isnull=False,
        last_seen__gt=since - timedelta(seconds=frames.grace_seconds()),
    ).update(last_seen=F("last_seen") + gap)
    return Table.objects.filter(
        status=TableStatus.PLAYING, turn_deadline__isnull=False, turn_deadline__gt=since,
    ).exclude(
        Exists(Seat.objects.filter(
            table=OuterRef("pk"), index=OuterRef("deadline_seat"), bot_level__isnull=False,
        ))
    ).update(turn_deadline=F("turn_deadline") + gap)


def tables_sweep() -> dict[str, int]:
    """Periodic: apply deadlines missed across a restart (a computer's late move is played
    then), give back time lost to an outage, restart clocks stopped by a lost frame, show
    players who left, close stale open tables. Safe to run twice (every step re-checks
    under the row lock)."""
    now = timezone.now()
    done = {"timeouts": 0, "presence": 0, "closed": 0, "extended": 0, "resumed": 0}
    gap = _sweep_gap(now)
    if gap is not None:
        # At most a few minutes: after a long stop the games of then are over anyway.
        back = min(gap, timedelta(seconds=_setting("GAMES_OUTAGE_GIVE_BACK_MAX", 300)))
        done["extended"] = _give_back_time(now - gap, back)
        log.warning("the sweep had not run for %.1f s: %s turns got that time back",
                    gap.total_seconds(), done["extended"])
    late = Table.objects.filter(
        status=TableStatus.PLAYING, turn_deadline__lt=now - timedelta(seconds=1)
    ).values_list("pk", flat=True)
    for table_id in late:
        try:
            if table_timeout(table_id=table_id):
                done["timeouts"] += 1
        except Exception:
            log.exception("timeout of table %s failed", table_id)
    grace = timedelta(seconds=frames.grace_seconds())
    for table_id in Table.objects.filter(
        status=TableStatus.PLAYING, turn_deadline__isnull=True, deadline_seat__isnull=False,
        seconds_per_turn__gt=0, updated_at__lt=now - grace,
    ).values_list("pk", flat=True):
        # A clock stopped by a lost frame, and the player never came to see the table.
        seat = Table.objects.filter(pk=table_id).values_list("deadline_seat", flat=True).first()
        if table_clock_resume(table_id=table_id, seat=seat):
            done["resumed"] += 1
    grace = timedelta(seconds=frames.grace_seconds())
    # Seats whose player just crossed the grace period: publish so opponents may claim.
    recent_gone = Seat.objects.filter(
        table__status=TableStatus.PLAYING, user__isnull=False,
        last_seen__lt=now - grace, last_seen__gte=now - grace - timedelta(seconds=60),
    ).values_list("table_id", flat=True).distinct()
    for table_id in recent_gone:
        table_presence_publish(table_id=table_id)
        done["presence"] += 1
    stale = now - timedelta(seconds=_setting("GAMES_OPEN_TABLE_TTL", 3 * 3600))
    for table_id in Table.objects.filter(
        status=TableStatus.OPEN, updated_at__lt=stale
    ).values_list("pk", flat=True):
        with transaction.atomic():
            table = _lock(table_id)
            if table.status == TableStatus.OPEN and table.updated_at < stale:
                table.status = TableStatus.ABANDONED
                table.finished_at = now
                table.version += 1
                table.save()
                _publish(table, _seats(table))
                done["closed"] += 1
    return done
