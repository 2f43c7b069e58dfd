"""What one move costs the database: the statements of ``table_act`` are counted (not
timed), so work added to every move shows up here first. The bound is exact: a change that
saves a statement lowers it, one that adds a statement must say why here.

One player's move with its move id is five statements on SQLite and PostgreSQL alike:
the transaction's start, the table row locked with its room, creator and seats (one
SELECT), the action inserted (its move id refused there when played already: no look-up
first), the table's one UPDATE, and the commit. (Seven before issue 22: the seats were a
second SELECT, and the move id an ``exists()`` before the insert.)
"""
from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import services, states, timeouts
from games.exceptions import DuplicateAction, StaleVersion
from games.models import Table, TableAction
from tests.support.tables import start_table

MOVE_STATEMENTS = 5


def _move(table_id, users, client_id):
    table = Table.objects.get(pk=table_id)
    state = states.load(table.state)
    seat = state.to_act
    return dict(table_id=table_id, user=users[seat], action=timeouts.safe_action(state),
                expected_version=table.version, client_id=client_id)


def _statements(ctx):
    # SQLite's transactions show as statements (BEGIN IMMEDIATE / COMMIT) as PostgreSQL's do.
    return [q["sql"] for q in ctx.captured_queries]


@pytest.mark.django_db(transaction=True)
def test_one_human_move_statements(rooms, two_players):
    table = start_table(rooms["classic"], list(two_players), seconds=30)
    for n in range(4):  # a few moves, each the same cost
        kwargs = _move(table.pk, two_players, f"m-{n}")
        with CaptureQueriesContext(connection) as ctx:
            version = services.table_act(**kwargs)
        sql = _statements(ctx)
        assert len(sql) <= MOVE_STATEMENTS, "\n".join(sql)
        assert version == kwargs["expected_version"] + 1
    assert not any("SELECT 1" in s for s in sql), "no look-up of the move id before the insert"


@pytest.mark.django_db(transaction=True)
def test_move_id_refused_by_the_insert(rooms, two_players):
    """The unique constraint refuses a second copy of a move id: a retry of a move that went
    through is ``duplicate`` (not ``stale_version``), and a fresh move reusing an old id is
    refused without changing anything."""
    table = start_table(rooms["classic"], list(two_players), seconds=30)
    first = _move(table.pk, two_players, "same")
    services.table_act(**first)
    with pytest.raises(DuplicateAction):
        services.table_act(**first)  # the retry: stale by now, but a duplicate first
    # The same seat's next move with the same id, at the current version.
    services.table_act(**_move(table.pk, two_players, "other"))
    again = _move(table.pk, two_players, "same")
    assert again["user"] == first["user"]
    before = Table.objects.get(pk=table.pk)
    with pytest.raises(DuplicateAction):
        services.table_act(**again)
    after = Table.objects.get(pk=table.pk)
    assert (after.version, after.state) == (before.version, before.state)
    assert TableAction.objects.filter(table=table, client_id="same").count() == 1
    # The transaction stayed usable: the same move with a new id goes through.
    services.table_act(**{**again, "client_id": "new"})
    with pytest.raises(StaleVersion):
        services.table_act(**{**again, "client_id": "newer"})
