"""Tables started and played through the games services (as a client would)."""
from __future__ import annotations

from games import services, states, timeouts
from games.models import Game, Seat, Table, TableStatus


def start_table(room, users, *, seconds=30, target=None, seats=None, seed=None):
    """A started table with ``users`` seated in order (through the services); ``seed``, the
    table's seed (its deals and its computers' choices), else a new random one."""
    table = services.table_create(
        user=users[0], room=room, seat_count=seats or len(users), seconds_per_turn=seconds,
        target=target,
    )
    if seed is not None:  # (the last seat taken deals from it)
        Table.objects.filter(pk=table.pk).update(seed=seed)
    for u in users[1:]:
        services.table_sit(table_id=table.pk, user=u)
    return Table.objects.get(pk=table.pk)


def state_of(table_id):
    """The engine state of a table, as stored."""
    return states.load(Table.objects.get(pk=table_id).state)


def play_one(table_id, users_by_seat, rng=None):
    """The seat to act plays a legal move (random with ``rng``, else the safe move)."""
    table = Table.objects.get(pk=table_id)
    state = states.load(table.state)
    seat = state.to_act
    if rng is None:
        text = timeouts.safe_action(state)
    else:
        from games import engine as E

        text = str(rng.choice(E.legal_actions(state)))
    return services.table_act(
        table_id=table_id, user=users_by_seat[seat], action=text,
        expected_version=table.version,
    )


def rated_table(rooms, users, mode="classic", seed=None):
    """A rated table of ``users`` (seat i is users[i]) where each has made a move (``seed`` as
    in ``start_table``)."""
    table = services.table_create(user=users[0], room=rooms[mode], rated=True,
                                        seat_count=len(users))
    if seed is not None:
        Table.objects.filter(pk=table.pk).update(seed=seed)
    for u in users[1:]:
        services.table_sit(table_id=table.pk, user=u)
    by_seat = {i: u for i, u in enumerate(users)}
    # everybody makes a move, so the game is not an abort (a turn may take more than one:
    # a draw and a discard)
    moved: set[int] = set()
    while len(moved) < len(users):
        moved.add(state_of(table.pk).to_act)
        play_one(table.pk, by_seat)
    return table


def resigned_rated_table(rooms, users, capture):
    """A ``rated_table`` of ``users`` that the last of them then resigned, the on-commit work
    of each step run (``capture``: pytest-django's ``django_capture_on_commit_callbacks``)."""
    with capture(execute=True):
        table = rated_table(rooms, users)
    with capture(execute=True):
        services.table_resign(table_id=table.pk, user=users[-1])
    return table


def play_then_resign(table_id, users_by_seat, moves, resigner):
    """``moves`` safe moves by whoever is to act, then ``resigner`` resigns: a game that
    ends early, stored as a finished game."""
    for _ in range(moves):
        play_one(table_id, users_by_seat)
    return services.table_resign(table_id=table_id, user=resigner)


def play_to_the_end(table_id, users_by_seat, limit=5000):
    """The people still seated (of ``users_by_seat``) play safe moves, the computers moving
    on their own (Celery runs eagerly in the tests), until the game is over: its ``Game``."""
    for _ in range(limit):
        if Table.objects.get(pk=table_id).status != TableStatus.PLAYING:
            return Game.objects.get(table_id=table_id)
        seated = set(Seat.objects.filter(table_id=table_id, user__isnull=False)
                     .values_list("index", flat=True))
        play_one(table_id, {i: u for i, u in users_by_seat.items() if i in seated})
    raise AssertionError("the game did not end")
