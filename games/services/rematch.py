"""A rematch: offers, and the new table once every player has offered."""
from __future__ import annotations

import secrets
from typing import TYPE_CHECKING

from django.db import transaction
from django.utils import timezone

from core.channels import Outbox

from .. import hooks
from ..exceptions import NotPlaying, RematchRefused
from ..models import Seat, Table, TableStatus
from .locking import load_seats, lock_table_in, require_seat
from .publish import announce_seated, save_and_publish
from .tables import rated_seat_check, start_game

if TYPE_CHECKING:
    from accounts.models import User


def table_rematch(*, table_id: int, user: User, accept: bool = True,
                  outbox: Outbox | None = None) -> Table:
    """Offer (or accept) a rematch; when every human player has, the new table starts.
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
            rated_seat_check(table, user)  # a playban also bars a rated rematch
            offers.add(mine.index)
        else:
            offers.clear()
        table.rematch_offers = sorted(offers)
        table.version += 1
        humans = {s.index for s in seats if s.user_id is not None}
        if accept and humans <= offers:
            new = _rematch_table(table, seats, outbox)
            table.rematch_table = new
        save_and_publish(table, seats, outbox=outbox)
    return table


def _rematch_table(old: Table, seats: list[Seat], outbox: Outbox | None) -> Table:
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
    state = start_game(table, new_seats)
    table.version += 1
    save_and_publish(table, new_seats, state, outbox=outbox)
    for s in new_seats:
        if s.user_id:
            announce_seated(table, s.user_id)
    return table
