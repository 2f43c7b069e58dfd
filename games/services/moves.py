"""Every move: a player's, a computer's (thought outside the row lock), and the safe moves
played when a clock runs out.
"""
from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from django.db import transaction
from django.utils import timezone

from core.channels import Outbox
from games import engine as E

from .. import computer, conf, states, timeouts
from ..exceptions import (
    DuplicateAction,
    GameServiceError,
    IllegalAction,
    InvalidAction,
    NotPlaying,
    NotSeated,
    NotYourTurn,
    StaleVersion,
)
from ..models import ActionSource, Ending, Seat, Table, TableAction, TableStatus
from .clock import clocks_fresh, set_clock
from .endings import finish_game, leave_game
from .locking import (
    insert_action,
    load_seats,
    lock_table,
    lock_table_with_seats,
    require_seat,
)
from .publish import save_and_publish

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser

    from accounts.models import User

log = logging.getLogger(__name__)

ACTION_MAX = 80
CLIENT_ID_MAX = 40


def _commit_state(table: Table, seats: list[Seat], state: E.GameState, *,
                  prev_to_act: int | None, events: Sequence[E.Event],
                  last: dict[str, Any] | None, outbox: Outbox | None = None) -> None:
    """Store the new state (finishing the game if it is over), publish, schedule."""
    if state.is_over:
        finish_game(table, seats, state, ending=Ending.NORMAL, loser_seat=None,
                events=events, last=last, outbox=outbox)
        return
    table.state = states.dump(state)
    set_clock(table, seats, state, prev_to_act)
    # Moves change only these (a full save would rewrite every column on every move).
    save_and_publish(table, seats, state, events=events, last=last, outbox=outbox, fields=[
        "state", "version", "turn_deadline", "deadline_seat", "turn_started_at", "updated_at",
    ])


def _store_action(table: Table, seat: int, text: str, source: str, client_id: str = "") -> None:
    """Store the action of the table's next version. A ``client_id`` the seat has used at
    this table already raises ``DuplicateAction`` (see ``insert_action``)."""
    table.version += 1
    if client_id:
        if not insert_action(table_id=table.pk, version=table.version, seat=seat,
                             action=text, source=source, client_id=client_id):
            raise DuplicateAction()
        return
    TableAction.objects.create(
        table=table, version=table.version, seat=seat, action=text, source=source,
    )


def _duplicate(table: Table, seat: int, client_id: str) -> bool:
    """Whether the seat's ``client_id`` was played already: asked only on the way to a
    refusal (a retry of a move that went through is stale by then, and must be told
    ``duplicate``, not ``stale_version``); a move that is accepted learns it from its insert."""
    return bool(client_id) and TableAction.objects.filter(
        table=table, seat=seat, client_id=client_id
    ).exists()


def table_act(
    *, table_id: int, action: Any, expected_version: Any, user: User | AnonymousUser | None = None,
    seat: int | None = None,
    source: str = ActionSource.PLAYER, client_id: Any = "", outbox: Outbox | None = None,
) -> int:
    """Play one move and return the new version. Its frames go out after the commit, or
    into ``outbox`` for the caller to send (a table socket's own move).

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
        table, seats = lock_table_with_seats(table_id)
        if table.status != TableStatus.PLAYING:
            raise NotPlaying()
        if user is not None:
            mine = require_seat(seats, user)
        else:
            bot_seat = next((s for s in seats if s.index == seat), None)
            if bot_seat is None or bot_seat.bot_level is None:
                raise NotSeated()
            mine = bot_seat
        try:
            if expected_version != table.version:
                raise StaleVersion()
            state = states.load(table.state)
            if state.to_act != mine.index:
                raise NotYourTurn()
            try:
                text = str(E.Action.parse(action))
                new, events = E.apply(state, text, mine.index)
            except E.InvalidActionError as exc:
                raise InvalidAction(str(exc)) from None
            except E.IllegalActionError as exc:
                raise IllegalAction(str(exc)) from None
        except GameServiceError:
            # A move id played already is a duplicate, whatever else is wrong with it now.
            if _duplicate(table, mine.index, client_id):
                raise DuplicateAction() from None
            raise
        _store_action(table, mine.index, text, source, client_id)
        if source == ActionSource.PLAYER and mine.timeouts:
            mine.timeouts = 0
            mine.save(update_fields=["timeouts"])
        _commit_state(table, seats, new, prev_to_act=mine.index, events=events,
                      last={"seat": mine.index, "action": text, "source": source},
                      outbox=outbox)
        return table.version


def table_bot_move(*, table_id: int, version: int) -> bool:
    """The bot to act plays, if the table is still at ``version`` (safe to run twice).

    The bot thinks outside the row lock; ``table_act`` then re-checks the version.
    """
    table = Table.objects.filter(pk=table_id).first()
    if table is None or table.status != TableStatus.PLAYING or table.version != version:
        return False
    state = states.load(table.state)
    if state.to_act is None:  # (no seat has index None: nobody to play)
        return False
    seat = Seat.objects.filter(table=table, index=state.to_act).first()
    if seat is None or seat.bot_level is None:
        return False
    text = computer.bot_action(state, seat.index, seat.bot_level, seed=table.seed ^ version)
    try:
        table_act(table_id=table_id, action=text, expected_version=version, seat=seat.index,
                  source=ActionSource.BOT)
    except (StaleVersion, NotPlaying, NotYourTurn):
        return False
    return True


def _unheard(seat: Seat, now: datetime) -> bool:
    """A seat shown connected whose pings have not reached the server for a while, though it
    is not yet gone: the site may have failed to deliver the turn (a database or channel
    layer outage, a web process that died), so its clock must not run out against it."""
    if seat.user_id is None or not seat.connected or seat.last_seen is None:
        return False
    quiet = now - seat.last_seen
    return timedelta(seconds=conf.get("HEARD_WINDOW")) < quiet and not (
        seat.is_gone(now)
    )


def table_timeout(*, table_id: int) -> bool:
    """The clock ran out: play safe moves for the player to act, or forfeit them after
    ``GAMES_MAX_TIMEOUTS`` timeouts in a row. Does nothing unless the table's stored deadline
    has passed; applying it sets the next turn's deadline (or none), so each deadline applies
    exactly once however often, or however late, it is called (by a socket's timer or the
    sweep).

    A computer's deadline means its move was lost (see ``set_clock``): it is played now. A
    connected player the server has not heard from lately gets a fresh turn instead of a
    timeout (``_unheard``); once they are gone, timeouts apply as usual. Time lost to an
    outage of the site is given back first (``clock.clocks_fresh``)."""
    tolerance = timedelta(seconds=0.5)
    # First the time lost to a gap in the site's liveness (a database outage, a restart) is
    # given back: a deadline that passed while nobody could move is not a timeout.
    clocks_fresh()
    with transaction.atomic():
        table = lock_table(table_id)
        now = timezone.now()
        if (
            table.status != TableStatus.PLAYING
            or table.turn_deadline is None or table.turn_deadline > now + tolerance
        ):
            return False
        seats = load_seats(table)
        state = states.load(table.state)
        seat_index = state.to_act
        if seat_index is None:
            return False
        seat = seats[seat_index]
        if seat.bot_level is None:
            if _unheard(seat, now):
                table.turn_deadline = now + timedelta(seconds=table.seconds_per_turn)
                table.save(update_fields=["turn_deadline"])
                log.warning("table %s: seat %s is unheard; its turn starts again",
                            table_id, seat_index)
                return False
            return _apply_timeout(table, seats, state, seat)
        bot_version = table.version
    # Outside the lock: the bot thinks, then plays through table_act (which re-checks).
    log.warning("table %s: the computer's move at version %s was late; playing it now",
                table_id, bot_version)
    return table_bot_move(table_id=table_id, version=bot_version)


def _apply_timeout(table: Table, seats: list[Seat], state: E.GameState, seat: Seat) -> bool:
    seat_index = seat.index
    seat.timeouts += 1
    seat.save(update_fields=["timeouts"])
    if seat.timeouts >= conf.get("MAX_TIMEOUTS"):
        # the player forfeits: the game ends, or goes on without them with the computer in
        # their seat, which plays the turn that ran out
        table.version += 1
        leave_game(table, seats, state, [seat], Ending.TIMEOUT)
        return True
    hand = state.hand_number
    start = len(state.hand_history)
    events: list[E.Event] = []
    text = ""
    for _ in range(30):
        text = timeouts.safe_action(state)
        state, new_events = E.apply(state, text, seat_index)
        events.extend(new_events)
        _store_action(table, seat_index, text, ActionSource.TIMEOUT)
        if state.is_over or state.to_act != seat_index or state.hand_number != hand:
            break
    if state.hand_number == hand and not state.is_over:
        # marked for a log rebuilt mid-hand (a move ending the hand leaves nothing to mark)
        table.hand_timeouts = [*(m for m in table.hand_timeouts or [] if m[0] == hand),
                               [hand, start, len(state.hand_history)]]
        table.save(update_fields=["hand_timeouts"])
    # The turn that timed out is over: the next one (even the same seat's, in a new hand)
    # gets a deadline of its own, without the first turn's extra time.
    table.turn_deadline = None
    _commit_state(table, seats, state, prev_to_act=seat_index, events=events,
                  last={"seat": seat_index, "action": text, "source": ActionSource.TIMEOUT})
    return True
