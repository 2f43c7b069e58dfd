"""A hint: the move the Hard computer would make in the player's place, thought from what the
player's seat sees and nothing else (``computer.bot_action`` gives the bot the seat's view).
Only at a casual table where every other seat is the computer (``seat_rules.hints_allowed``): a
hint is a lesson, never help against a person. Nothing is stored; the answer names the
version it was thought for, and a client shows it only while that version is on the table."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from core.channels import Outbox

from .. import computer, states
from ..bots.levels import HINT_LEVEL
from ..exceptions import NoHint, NotPlaying, NotYourTurn
from ..models import Table, TableStatus
from ..seat_rules import hints_allowed
from .locking import load_seats, require_seat

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser

    from accounts.models import User

def table_hint(*, table_id: int, user: User | AnonymousUser | None,
               outbox: Outbox | None = None) -> dict[str, Any]:
    """``{"version", "action"}``: the Hard computer's move for the user's seat, whose turn it
    must be. ``NotSeated``, ``NotPlaying``, ``NoHint`` (a rated table, or a person at it),
    ``NotYourTurn``. Nothing changes."""
    table = Table.objects.filter(pk=table_id).first()
    if table is None or table.status != TableStatus.PLAYING:
        raise NotPlaying()
    seats = load_seats(table)
    mine = require_seat(seats, user)
    # (a computer playing on for a person who left is no computer to take hints against)
    bots = [s.bot_level is not None and not s.stands_in for s in seats]
    if not hints_allowed(rated=table.rated, bot_seats=bots, seat=mine.index):
        raise NoHint()
    state = states.load(table.state)
    if state.to_act != mine.index:
        raise NotYourTurn()
    # Seeded by the table and the version (never by the table's seed, which orders the
    # deck): asking twice gives the same hint.
    seed = table.pk * 1_000_003 + table.version
    action = computer.bot_action(state, mine.index, HINT_LEVEL, seed=seed)
    return {"version": table.version, "action": action}
