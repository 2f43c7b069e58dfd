"""A rematch: offers, and the new table once every player has offered."""
from __future__ import annotations

import secrets
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from core.channels import Outbox

from .. import hooks, states
from ..exceptions import NotPlaying, RematchRefused
from ..models import Seat, Table, TableStatus
from .locking import load_seats, lock_table_in, require_seat
from .publish import announce_seated, save_and_publish
from .tables import seat_check, start_game

if TYPE_CHECKING:
    from accounts.models import User


# An offer stands while its player is at the table: one who left (a socket closed and not
# back, or no sign of life for this long) has let it lapse. An offer kept for good once
# started a rematch 70 s after its player had gone to the lobby: their turn ran out there.
OFFER_PRESENCE = timedelta(seconds=30)


def offer_stands(seat: Seat, now: datetime) -> bool:
    """Whether ``seat``'s player is still at the table, so that their offer stands."""
    return seat.user_id is None or bool(
        seat.connected and seat.last_seen is not None and seat.last_seen >= now - OFFER_PRESENCE)


def table_rematch(*, table_id: int, user: User, accept: bool = True,
                  outbox: Outbox | None = None) -> Table:
    """Offer (or accept) a rematch; when every human player has, the new table starts.
    The offers of players who have left the table have lapsed (``offer_stands``).
    ``accept=False`` withdraws or declines: the offers are cleared."""
    with transaction.atomic():
        table = lock_table_in(table_id, TableStatus.FINISHED,
                              NotPlaying("A rematch is offered once the game is over."),
                              user=user)
        seats = load_seats(table)
        mine = require_seat(seats, user)
        if table.rematch_table is not None:  # (no query while rematch_table_id is None)
            return table.rematch_table
        offers = set(table.rematch_offers or [])
        if accept:
            reason = hooks.rematch_refusal(table)
            if reason:
                raise RematchRefused(reason)
            # (a block made since the game began: no new game together, said as no rematch)
            if hooks.seat_refusal(table, user, [s.user_id for s in seats]):
                raise RematchRefused()
            # a playban bars a rated rematch, and a tournament match in play any with people
            seat_check(table, user, among_people=sum(s.user_id is not None for s in seats) > 1)
            now = timezone.now()
            by_index = {s.index: s for s in seats}
            offers = {i for i in offers if i in by_index and offer_stands(by_index[i], now)}
            offers.add(mine.index)
        else:
            offers.clear()
        humans = {s.index for s in seats if s.user_id is not None}
        if accept and humans <= offers:
            # an offer made before its player's tournament match began has lapsed: the rematch
            # would have dealt them a second game beside it (nobody is told why)
            others = get_user_model().objects.in_bulk(
                [s.user_id for s in seats if s.user_id is not None and s is not mine])
            offers -= {s.index for s in seats if s.user_id in others
                       and hooks.busy_refusal(others[s.user_id])}
        table.rematch_offers = sorted(offers)
        table.version += 1
        if accept and humans <= offers:
            new = _rematch_table(table, seats, outbox)
            table.rematch_table = new
        save_and_publish(table, seats, outbox=outbox)
    return table


def _rematch_table(old: Table, seats: list[Seat], outbox: Outbox | None) -> Table:
    # Its creator is one of its players: the old table's, unless they left the game (a
    # private table's creator may open it, and the leaver would have watched a private
    # rematch that is not theirs), then the first person still seated.
    people = [s.user_id for s in seats if s.user_id is not None]
    creator = old.created_by_id if old.created_by_id in people else people[0]
    table = Table.objects.create(
        room=old.room, mode=old.mode, seat_count=old.seat_count, target=old.target,
        rated=old.rated, seconds_per_turn=old.seconds_per_turn, private=old.private,
        rating_range=old.rating_range,
        invite_token=secrets.token_urlsafe(16) if old.private else "",
        seed=states.new_seed(), created_by_id=creator, version=1,
    )
    # Players move one seat round, so the deal order changes between games. The seat of a
    # person who left the game (the computer played it on) is open again: the rematch waits
    # for somebody to sit there (or, at a casual table, for a computer its players add),
    # as any table does; it had got a Medium computer nobody chose, at a rated table too.
    n = len(seats)
    new_seats = []
    for s in seats:
        new_seats.append(Seat.objects.create(
            table=table, index=(s.index + 1) % n, user=s.user,
            bot_level=None if s.stands_in else s.bot_level,
            last_seen=timezone.now() if s.user_id else None,
        ))
    new_seats.sort(key=lambda s: s.index)
    state = None
    if not any(s.is_empty for s in new_seats):
        state = start_game(table, new_seats)
    table.version += 1
    save_and_publish(table, new_seats, state, outbox=outbox)
    for s in new_seats:
        if s.user_id:
            announce_seated(table, s.user_id)
    return table
