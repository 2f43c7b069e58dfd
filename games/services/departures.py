"""A person leaves a game of three or four and it goes on without them.

A resignation, a timeout forfeit or a claim that someone is gone used to end every game at
once. At a table of three or four (Basic Rummy) where another person still plays, it now
takes the leaver out instead: their place is fixed at that moment (the last place still free,
so an earlier leaver ranks below a later one), the Medium computer plays their seat on with
ordinary moves of that seat (the engine record still replays), and the others play the game
to its end by the rules, placed above every leaver. The seat keeps whose it was
(``Seat.left_user``, ``Seat.left``) for the stored game and for the leaver's access to it.

When no other person would be left to play, or a single seat would be left playing for a
place, the game ends at once as before (``endings.finish_game``), the earlier leavers keeping
the places they had taken.
"""
from __future__ import annotations

from collections.abc import Sequence
from functools import partial

from django.utils import timezone

from core.channels import Outbox
from games import engine as E

from .. import signals
from ..bots.levels import STAND_IN_LEVEL
from ..models import Seat, Table, TableAction
from ..seat_rules import game_goes_on
from .clock import set_clock
from .locking import after_commit
from .publish import save_and_publish


def goes_on_without(seats: Sequence[Seat], leaving: Sequence[Seat]) -> bool:
    """Whether the game goes on after ``leaving`` leave it (``seat_rules.game_goes_on``: a table
    of three or four where, besides the computers playing for earlier leavers, another person
    still plays and at least two seats still play for a place)."""
    out = {s.index for s in leaving}
    staying = [s for s in seats if s.index not in out and not s.stands_in]
    return game_goes_on(len(seats), len(staying), sum(s.user_id is not None for s in staying))


def seat_hand_over(seats: Sequence[Seat], seat: Seat, state: E.GameState, reason: str) -> None:
    """``seat``'s person leaves the game (``reason``, an ``Ending``): their place is fixed
    and the computer takes the seat. Announced to social (``player_left``: no longer
    playing there) after the commit. The caller bumps the version and publishes."""
    user = seat.user
    assert user is not None, "only a person's seat is handed over"
    earlier = sum(1 for s in seats if s.stands_in)
    now = timezone.now()
    seat.left = {
        "username": user.username, "name": user.public_name, "reason": reason,
        "at": now.isoformat().replace("+00:00", "Z"), "place": len(seats) - earlier,
        "after_hands": len(state.hand_results),
        # the moves made before they left: the replay names the computer from the next one
        # on (records.stand_ins), without reading the moves' times back
        "moves_before": TableAction.objects.filter(table_id=seat.table_id).count(),
    }
    seat.left_user = user
    seat.user = None
    seat.bot_level = STAND_IN_LEVEL
    seat.connected = False
    seat.timeouts = 0
    seat.save(update_fields=["left", "left_user", "user", "bot_level", "connected",
                             "timeouts"])
    after_commit(partial(signals.player_left.send, sender=Table, table_id=seat.table_id,
                         user_id=user.pk))


def hand_over(seats: list[Seat], leaving: Sequence[Seat], state: E.GameState,
              reason: str) -> Seat | None:
    """``leaving`` (one or more people, the first to leave first) leave the game for
    ``reason``: each hands their seat to the computer while the game can go on without them
    (``goes_on_without``). Returns the first who cannot, whose leaving ends the game (the
    caller finishes it with them as the forfeiting seat), else None."""
    for seat in leaving:
        if not goes_on_without(seats, [seat]):
            return seat
        seat_hand_over(seats, seat, state, reason)
    return None


def publish_going_on(table: Table, seats: list[Seat], state: E.GameState,
                     outbox: Outbox | None = None) -> None:
    """The table's new version after seats were handed over (the caller bumped it): the turn
    of a person still playing keeps its deadline, a handed-over seat that is to act gets the
    computer's (its move queued after the commit)."""
    set_clock(table, seats, state, prev_to_act=state.to_act)
    save_and_publish(table, seats, state, outbox=outbox, fields=[
        "version", "turn_deadline", "deadline_seat", "turn_started_at", "updated_at",
    ])
