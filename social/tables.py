"""The little that ``social`` needs to know about live tables, in one adapter.

Invitations refer to a table by id; reading a table and seating an invitee go through here, so
the rest of the app never imports ``games``' models or services directly. ``social`` sits above
``games`` in the layering (``games`` never imports ``social``); this module is where ``social``
reaches down, read-only plus the seating service.
"""
from __future__ import annotations

from dataclasses import dataclass

from django.urls import NoReverseMatch, reverse


class TableUnavailable(Exception):
    """The table does not exist, is over, is full, or cannot seat this user."""


@dataclass(frozen=True)
class TableInfo:
    id: int
    name: str
    url: str
    open: bool
    free_seats: int
    seated_user_ids: frozenset
    private: bool
    invite_token: str

    @property
    def joinable(self) -> bool:
        """Still waiting for players, with a seat free: an invitation to it can be accepted."""
        return self.open and self.free_seats > 0

    @property
    def invite_url(self) -> str:
        if self.private and self.invite_token:
            return f"{self.url}?invite={self.invite_token}"
        return self.url


def _models():
    from games.models import Table, TableStatus

    return Table, TableStatus


def mode_choices() -> list[tuple[str, str]]:
    """The games' modes as (key, name) pairs, for the challenge form and the API's checks."""
    from games.models import Mode

    return [(str(key), str(name)) for key, name in Mode.choices]


def mode_seat_counts() -> dict[str, tuple[int, int]]:
    """How many players each mode seats, as (fewest, most): 2 for the gins, 2 to 4 for
    Rummy (the rules engine's numbers)."""
    from games import engine as E

    return {key: (E.get_mode(key).min_players, E.get_mode(key).max_players)
            for key, _ in mode_choices()}


def table_name(mode_name: str, table_id: int) -> str:
    """How invitations and notifications name a table: "Basic Rummy · table 12"."""
    return f"{mode_name} · table {table_id}"


def table_url(table_id: int) -> str:
    try:
        return reverse("games:table", kwargs={"table_id": table_id})
    except NoReverseMatch:
        return f"/tables/{int(table_id)}/"


def _info(table) -> TableInfo:
    _, TableStatus = _models()
    seats = list(table.seats.all())
    seated = frozenset(s.user_id for s in seats if s.user_id is not None)
    free = sum(1 for s in seats if s.is_empty) if seats else table.seat_count
    return TableInfo(
        id=table.pk,
        name=table_name(table.get_mode_display(), table.pk),
        url=table_url(table.pk),
        open=table.status == TableStatus.OPEN,
        free_seats=free,
        seated_user_ids=seated,
        private=table.private,
        invite_token=table.invite_token or "",
    )


def table_get(table_id: int) -> TableInfo | None:
    Table, _ = _models()
    table = Table.objects.prefetch_related("seats").filter(pk=table_id).first()
    return _info(table) if table else None


def tables_get(table_ids) -> dict[int, TableInfo]:
    Table, _ = _models()
    return {
        t.pk: _info(t)
        for t in Table.objects.prefetch_related("seats").filter(pk__in=set(table_ids))
    }


def tables_for_inviter(user) -> list[TableInfo]:
    """Open tables where ``user`` holds a seat and a seat is still free: those they can invite
    a contact to."""
    Table, TableStatus = _models()
    tables = (
        Table.objects.filter(status=TableStatus.OPEN, seats__user=user)
        .prefetch_related("seats")
        .distinct()
        .order_by("-created_at")[:20]
    )
    return [info for info in map(_info, tables) if info.free_seats > 0]


def busy_reason(user) -> str | None:
    """Why ``user`` takes no seat among people just now (their tournament match is in play:
    ``games.hooks.busy_refusal``), or None. An invitation or a challenge they answer then is
    kept for later, not closed."""
    from games import hooks

    return hooks.busy_refusal(user)


def table_seat(*, user, table_id: int) -> str:
    """Seat ``user`` at the table through ``games.services.table_sit``; returns its URL.

    The invitation stands for the table's invite link, so private tables seat the invitee.
    Raises :class:`TableUnavailable` with a user-facing message when that is not possible.
    """
    from games.exceptions import GameServiceError
    from games.services import table_sit

    info = table_get(table_id)
    if info is None:
        raise TableUnavailable("This table does not exist any more.")
    if user.pk in info.seated_user_ids:
        return info.url
    try:
        table_sit(table_id=info.id, user=user, invite=info.invite_token)
    except GameServiceError as exc:
        raise TableUnavailable(exc.message) from exc
    return info.url


def challenge_check(*, mode: str, target: int | None, rated: bool, seconds_per_turn: int) -> None:
    """Check a challenge's settings as the table would (``games.services.table_pair_check``);
    a refusal is :class:`TableUnavailable` with the games app's message."""
    from games.exceptions import GameServiceError
    from games.services import table_pair_check

    try:
        table_pair_check(mode=mode, target=target, rated=rated,
                         seconds_per_turn=seconds_per_turn)
    except GameServiceError as exc:
        raise TableUnavailable(exc.message) from exc


def table_start_pair(*, players, mode: str, target: int | None, rated: bool,
                     seconds_per_turn: int) -> int:
    """Open and deal a two-player table with ``players`` seated (an accepted challenge,
    ``games.services.table_start_pair``); returns its id. :class:`TableUnavailable` when the
    games app refuses (a playban on a rated game, settings no longer valid)."""
    from games.exceptions import GameServiceError, SeatRefused
    from games.services import table_start_pair as start

    try:
        table = start(mode=mode, players=tuple(players), target=target, rated=rated,
                      seconds_per_turn=seconds_per_turn, created_by=players[0])
    except SeatRefused as exc:
        # the reason is its player's alone: the one accepting read the challenger's
        # tournament match (a private one's name, its table) or playban
        if exc.user_id is not None and exc.user_id != players[-1].pk:
            who = next((p for p in players if p.pk == exc.user_id), players[0])
            raise TableUnavailable(f"{who.public_name} cannot play this game now.") from exc
        raise TableUnavailable(exc.message) from exc
    except GameServiceError as exc:
        raise TableUnavailable(exc.message) from exc
    return int(table.pk)


def private_is_casual() -> str:
    """Why a private table cannot be rated (the games app's words, for the invitation form
    to put on its Private box)."""
    from games.services.tables import PRIVATE_IS_CASUAL

    return PRIVATE_IS_CASUAL


def table_open(*, user, mode: str, seat_count: int, target: int | None, rated: bool,
               seconds_per_turn: int, private: bool) -> int:
    """Open a table of ``mode`` with ``user`` seated, waiting for the others
    (``games.services.table_create_for_mode``); returns its id. :class:`TableUnavailable`
    with the games app's message when it refuses (settings, a playban, too many waiting
    tables)."""
    from games.exceptions import GameServiceError
    from games.services import table_create_for_mode

    try:
        table = table_create_for_mode(user=user, mode=mode, seat_count=seat_count,
                                      target=target, rated=rated,
                                      seconds_per_turn=seconds_per_turn, private=private)
    except GameServiceError as exc:
        raise TableUnavailable(exc.message) from exc
    return int(table.pk)
