"""Tables before their game: create, sit, leave, add a computer player, deal; tables opened
for players paired elsewhere (tournaments)."""
from __future__ import annotations

import secrets
from collections.abc import Iterable
from functools import partial
from typing import TYPE_CHECKING

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone

from core.channels import Outbox
from games import engine as E

from .. import conf, hooks, states
from ..bots.levels import LEVEL_BY_NUMBER
from ..exceptions import (
    NOT_FOR_YOU,
    AlreadySeated,
    BotAccountRefused,
    Forbidden,
    InvalidSettings,
    NotOpen,
    SeatRefused,
    SeatTaken,
    TableFull,
    TooManyTables,
)
from ..models import Room, Seat, Table, TableStatus
from .clock import set_clock
from .locking import (
    load_seats,
    lock_table_in,
    require_seat,
    seat_of,
    sit_too_late,
    too_late,
)
from .publish import announce_seated, announce_started, save_and_publish
from .vacating import away_from_table, clear_seats, vacate_seats

if TYPE_CHECKING:
    from datetime import datetime

    from django.contrib.auth.models import AnonymousUser

    from accounts.models import User

TURN_SECONDS = (0, 15, 30, 60)


# A rating is public (the profile's card, the leaderboards, the game count), so a rated game
# would show anybody that its players met: a private game is always casual (docs/ratings.md).
PRIVATE_IS_CASUAL = ("A private game is casual: a rating is public, and its change would tell "
                     "others that you played. Untick Private for a rated game.")


def _validate_settings(*, room: Room, seat_count: int, target: int | None, rated: bool,
                       seconds_per_turn: int, bot_level: int | None,
                       rating_range: int | None = None, private: bool = False) -> None:
    mode = E.get_mode(room.mode)
    low, high = mode.min_players, mode.max_players
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
    if rated and private:
        raise InvalidSettings(PRIVATE_IS_CASUAL)
    if seconds_per_turn not in TURN_SECONDS:
        raise InvalidSettings("Choose 15, 30 or 60 seconds per turn, or untimed.")
    if seconds_per_turn == 0 and bot_level is None:
        raise InvalidSettings("Untimed games are only for playing the computer.")
    if bot_level is not None and bot_level not in LEVEL_BY_NUMBER:
        raise InvalidSettings("Computer levels are 1 to 4.")
    if rating_range is not None and (not rated or not 50 <= rating_range <= 1000):
        raise InvalidSettings("A rating range is for rated tables, from ±50 to ±1000.")


def _check_cap(user: User, *, computer: bool = False,
               exclude_table_id: int | None = None) -> None:
    """Refuse one more waiting table past ``GAMES_MAX_WAITING_TABLES``, or (``computer``)
    one more game against the computer in play past ``GAMES_MAX_COMPUTER_TABLES`` (a
    program on the bot API could otherwise start hundreds a minute). Called inside the
    creating or sitting transaction; the user's row is locked first so that two requests at
    once cannot both pass the count."""
    limit = conf.get("MAX_COMPUTER_TABLES" if computer else "MAX_WAITING_TABLES")
    if not limit:
        return
    list(get_user_model().objects.select_for_update().filter(pk=user.pk).values_list("pk"))
    if computer:
        held = Seat.objects.filter(user=user, table__status=TableStatus.PLAYING).filter(
            Exists(Seat.objects.filter(table=OuterRef("table"), bot_level__isnull=False)))
        what = f"game{'s' if limit != 1 else ''} against the computer in play: finish or resign"
    else:
        held = Seat.objects.filter(user=user, table__status=TableStatus.OPEN)
        what = (f"table{'s' if limit != 1 else ''} waiting for players: start, close or "
                "leave")
    if exclude_table_id is not None:
        held = held.exclude(table_id=exclude_table_id)
    if held.values("table_id").distinct().count() >= limit:
        where = ("(a resign message on its table socket)" if user.is_bot
                 else "(Your tables, on the Play page)")
        raise TooManyTables(f"You already have {limit} {what} one first {where}.")


def table_create(
    *, user: User | AnonymousUser | None, room: Room, seat_count: int = 2,
    target: int | None = None, rated: bool = False,
    seconds_per_turn: int = 30, private: bool = False, bot_level: int | None = None,
    rating_range: int | None = None, bot_api: bool = False,
) -> Table:
    """Create a table with ``user`` in seat 0; with ``bot_level`` the other seats get bots
    and the game starts at once. A bot account opens a table only through the bot API
    (``bot_api``), and only against the computer (docs/bot-api.md, "Playing")."""
    if user is None or not user.is_authenticated:
        raise Forbidden("Log in to create a table.")
    if user.is_bot and not (bot_api and bot_level is not None):
        raise BotAccountRefused()
    _validate_settings(room=room, seat_count=seat_count, target=target, rated=rated,
                       seconds_per_turn=seconds_per_turn, bot_level=bot_level,
                       rating_range=rating_range, private=private)
    with transaction.atomic():
        # a table against the computer starts at once: not waiting, but capped too
        _check_cap(user, computer=bot_level is not None)
        table = Table.objects.create(
            room=room, mode=room.mode, seat_count=seat_count,
            target=target or E.get_mode(room.mode).target_for(seat_count),
            rated=rated, seconds_per_turn=seconds_per_turn, private=private,
            invite_token=secrets.token_urlsafe(16) if private else "",
            seed=states.new_seed(), created_by=user, version=1, rating_range=rating_range,
        )
        seat_check(table, user, among_people=bot_level is None)
        seats = [
            Seat.objects.create(
                table=table, index=i, user=user if i == 0 else None,
                bot_level=bot_level if (i > 0 and bot_level is not None) else None,
                last_seen=timezone.now() if i == 0 else None,
            )
            for i in range(seat_count)
        ]
        state: E.GameState | None = None
        if bot_level is not None:
            state = start_game(table, seats)
        save_and_publish(table, seats, state)
        announce_seated(table, user.pk)
    return table


def play_computer(*, user: User | AnonymousUser | None, mode: str, level: int, seat_count: int = 2,
                  seconds_per_turn: int = 0, bot_api: bool = False,
                  target: int | None = None) -> Table:
    """One click: a table against the computer in the mode's own room, started at once
    (``bot_api``: a bot account's, through ``POST /api/bot/computer/``)."""
    room = Room.objects.filter(slug=mode).first() or Room.objects.filter(mode=mode).first()
    if room is None:
        raise InvalidSettings("There is no such game.")
    return table_create(
        user=user, room=room, seat_count=seat_count, rated=False, target=target,
        seconds_per_turn=seconds_per_turn, private=False, bot_level=level, bot_api=bot_api,
    )


def start_game(table: Table, seats: list[Seat]) -> E.GameState:
    """Deal the game (caller saves and publishes)."""
    state = states.new_state(table.mode, table.seed, table.seat_count, table.target)
    table.status = TableStatus.PLAYING
    table.started_at = timezone.now()
    table.state = states.dump(state)
    _grace_from_start(table.started_at, seats)
    set_clock(table, seats, state, prev_to_act=None)
    return state


def _grace_from_start(started: datetime, seats: list[Seat]) -> None:
    """A person not at the table when its game starts (on another page of the site: the
    start calls them back; ``vacating.away_from_table`` took out the others) has the grace
    period from the start. An inviter who had waited on another page for over a minute was
    claimable the moment the invitee sat down, and lost by abandonment a game never seen."""
    late = [s for s in seats if s.user_id is not None and s.pk is not None
            and not s.connected and s.last_seen is not None and s.last_seen < started]
    for s in late:
        s.last_seen = started
    if late:
        Seat.objects.filter(pk__in=[s.pk for s in late]).update(last_seen=started)


def seat_check(table: Table, user: User, *, among_people: bool = True) -> None:
    """Before ``user`` sits at ``table``: a seat among people is refused while ``user`` is
    busy elsewhere (a tournament match in play), and a rated table may refuse it (playban,
    rating range): ``games.hooks``."""
    reason = hooks.busy_refusal(user) if among_people else None
    if reason is None and table.rated:
        reason = hooks.rated_seat_refusal(table, user)
    if reason:
        raise SeatRefused(reason, user_id=user.pk)


def _maybe_start(table: Table, seats: list[Seat]) -> E.GameState | None:
    if all(not s.is_empty for s in seats):
        return start_game(table, seats)
    return None


def table_sit(*, table_id: int, user: User | AnonymousUser | None, seat: int | None = None,
              invite: str = "", outbox: Outbox | None = None) -> Table:
    """Take a seat (the first free one unless ``seat`` is given); the last one starts the game."""
    if user is None or not user.is_authenticated:
        raise Forbidden("Log in to take a seat.")
    if user.is_bot:
        raise BotAccountRefused()
    with transaction.atomic():
        # (a private table is missing without its link, whatever its state, and to someone
        # who blocks, or is blocked by, a person there: the answer of a wrong link)
        table = lock_table_in(table_id, TableStatus.OPEN, partial(sit_too_late, user),
                              user=user, invite=invite)
        if table.seconds_per_turn == 0:
            raise Forbidden("This table is for playing the computer.")
        seats = load_seats(table)
        if seat_of(seats, user):
            raise AlreadySeated()
        seat_check(table, user)
        if not table.private and hooks.seat_refusal(table, user, [s.user_id for s in seats]):
            raise SeatRefused(NOT_FOR_YOU, user_id=user.pk)  # (a block either way: unsaid)
        free = [s for s in seats if s.is_empty]
        if len(free) > 1:  # the last seat starts the game: it is not one more waiting table
            _check_cap(user, exclude_table_id=table.pk)
        if not free:
            raise TableFull()
        if seat is None:
            chosen = free[0]
        else:
            asked = next((s for s in seats if s.index == seat), None)
            if asked is None:
                raise SeatTaken("There is no such seat.")
            if not asked.is_empty:
                raise SeatTaken()
            chosen = asked
        chosen.user = user
        chosen.connected = False
        chosen.last_seen = timezone.now()
        chosen.timeouts = 0
        chosen.save()
        if len(free) == 1:  # the seat that starts the game: not against people long gone
            gone = away_from_table(seats, exclude=user.pk)
            table.vacated = tuple(s.user.public_name for s in gone if s.user is not None)
            clear_seats(table, gone)
        table.version += 1
        state = _maybe_start(table, seats)
        save_and_publish(table, seats, state, outbox=outbox)
        announce_seated(table, user.pk)
        if state is not None:
            announce_started(table, seats, user.pk)
    return table


def table_leave(*, table_id: int, user: User, outbox: Outbox | None = None) -> Table:
    """Leave before the start. A table left with no player in it is closed."""
    with transaction.atomic():
        table = lock_table_in(table_id, TableStatus.OPEN, partial(too_late, "leave"), user=user)
        seats = load_seats(table)
        vacate_seats(table, seats, [require_seat(seats, user)], outbox=outbox)
    return table


def table_add_bot(*, table_id: int, user: User, seat: int, level: int,
                  outbox: Outbox | None = None) -> Table:
    """A seated player fills an empty seat with a computer player."""
    if level not in LEVEL_BY_NUMBER:
        raise InvalidSettings("Computer levels are 1 to 4.")
    with transaction.atomic():
        table = lock_table_in(table_id, TableStatus.OPEN, NotOpen(), user=user)
        seats = load_seats(table)
        require_seat(seats, user, "Only a player at this table may add a computer player.")
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
        save_and_publish(table, seats, state, outbox=outbox)
        if state is not None:
            announce_started(table, seats, user.pk)
    return table


def table_create_for_players(
    *, room: Room, players: Iterable[User | None], target: int | None = None,
    rated: bool = False, seconds_per_turn: int = 30, created_by: User | None = None,
    private: bool = False,
) -> Table:
    """Open a table with ``players`` (users, in seat order) already seated and deal at once:
    for apps that pair players themselves (tournaments; bot accounts, which never take a
    seat through ``table_create`` or ``table_sit``, come to tables only this way or through
    ``table_start_pair``, a challenge). Settings are checked as for ``table_create``; the
    players are not marked as connected, so their presence shows whether they came. Frames,
    the first bot task and ``player_seated`` go out after commit. ``private``: a table for
    its players alone (a private tournament's match), as a private table is everywhere."""
    return _deal_for_players(room=room, players=players, target=target, rated=rated,
                             seconds_per_turn=seconds_per_turn, created_by=created_by,
                             private=private)


def _deal_for_players(
    *, room: Room, players: Iterable[User | None], target: int | None, rated: bool,
    seconds_per_turn: int, created_by: User | None, check_seats: bool = False,
    private: bool = False,
) -> Table:
    given = list(players)
    users = [u for u in given if u is not None and u.pk is not None]
    if not users or len(users) != len(given):
        raise InvalidSettings("Every seat needs a player.")
    if len({u.pk for u in users}) != len(users):
        raise InvalidSettings("A player can take only one seat.")
    _validate_settings(room=room, seat_count=len(users), target=target, rated=rated,
                       seconds_per_turn=seconds_per_turn, bot_level=None, private=private)
    with transaction.atomic():
        table = Table.objects.create(
            room=room, mode=room.mode, seat_count=len(users),
            target=target or E.get_mode(room.mode).target_for(len(users)),
            rated=rated, seconds_per_turn=seconds_per_turn, private=private,
            invite_token=secrets.token_urlsafe(16) if private else "",
            seed=states.new_seed(), created_by=created_by, version=1,
        )
        if check_seats:
            for u in users:
                seat_check(table, u)
        seats = [Seat.objects.create(table=table, index=i, user=u) for i, u in enumerate(users)]
        state = start_game(table, seats)
        save_and_publish(table, seats, state)
        for u in users:
            announce_seated(table, u.pk)
    return table


def _room_for(mode: str, seat_count: int = 2) -> Room:
    """The room of ``mode`` where ``seat_count`` players sit (the mode's own slug first, rated
    rooms before casual ones, as ``play_computer``)."""
    rooms = [r for r in Room.objects.filter(mode=mode) if r.min_seats <= seat_count <= r.max_seats]
    rooms.sort(key=lambda r: (r.slug != mode, not r.allow_rated, r.order))
    if not rooms:
        raise InvalidSettings("There is no such game." if not Room.objects.filter(mode=mode)
                              .exists() else "There are no tables of that many players.")
    return rooms[0]


def table_create_for_mode(*, user: User | AnonymousUser | None, mode: str,
                          seat_count: int = 2, target: int | None = None, rated: bool = False,
                          seconds_per_turn: int = 30, private: bool = False) -> Table:
    """Open a table of ``mode`` for people, with ``user`` in seat 0, in the mode's own room
    (a table opened to invite someone to, away from any room page). Raises as
    ``table_create``, and ``InvalidSettings`` for an unknown mode or seat count."""
    if not isinstance(mode, str) or mode not in E.MODES:
        raise InvalidSettings("There is no such game.")
    return table_create(user=user, room=_room_for(mode, seat_count), seat_count=seat_count,
                        target=target, rated=rated, seconds_per_turn=seconds_per_turn,
                        private=private)


def table_pair_check(*, mode: str, target: int | None, rated: bool,
                     seconds_per_turn: int) -> Room:
    """Check the settings of a two-player game agreed elsewhere (a challenge) before anyone
    accepts it; returns the room it will be played in. Raises ``InvalidSettings``."""
    if not isinstance(mode, str) or mode not in E.MODES:
        raise InvalidSettings("There is no such game.")
    room = _room_for(mode)
    _validate_settings(room=room, seat_count=2, target=target, rated=rated,
                       seconds_per_turn=seconds_per_turn, bot_level=None)
    return room


def table_start_pair(*, mode: str, players: tuple[User, User], target: int | None = None,
                     rated: bool = False, seconds_per_turn: int = 30,
                     created_by: User | None = None) -> Table:
    """Open a table of ``mode`` with both ``players`` seated (in that order) and deal at once:
    an accepted challenge. Each seat is a real seat (clocks, timeouts, abandonment as for
    anyone); each player's seat is checked (a playban, a tournament match in play)."""
    room = table_pair_check(mode=mode, target=target, rated=rated,
                            seconds_per_turn=seconds_per_turn)
    return _deal_for_players(room=room, players=players, target=target, rated=rated,
                             seconds_per_turn=seconds_per_turn, created_by=created_by,
                             check_seats=True)
