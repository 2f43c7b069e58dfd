"""Prepared statements for the few queries every move runs.

Django's PostgreSQL backend binds parameters on the client: PostgreSQL parses and plans
each statement anew. For the move's row lock (the table joined with its room, creator,
seats and their users) planning cost several times the execution: 0.29 to 0.37 ms against
0.06 ms (``EXPLAIN ANALYZE``, warm), and that query was the largest of the server's CPU in a
move (``bench/pg_move_cost.py``). A ``prepared_cursor`` sends the parameters separately and
has the server prepare the statement once per connection (per parameter types), then
execute the kept plan.

Only for statements whose text is fixed and that name their columns (no ``SELECT *``: a
prepared plan's result columns cannot change under it); every other query keeps Django's
ordinary cursor. Elsewhere than PostgreSQL with psycopg 3 (the embedded SQLite default) it
is the ordinary cursor. Django's wrappers see each statement as usual (the statement counts
of ``tests/games/test_move_cost.py``, the debug log).

The prepared statements live on the server connection (psycopg keeps up to 100 a
connection). Behind PgBouncer in transaction mode that needs PgBouncer 1.21 or later with
``max_prepared_statements`` set; session mode and direct connections need nothing.
"""
from __future__ import annotations

from typing import Any

from django.db import connection

try:
    import psycopg
except ImportError:  # psycopg 2 or another backend: no prepared cursor
    psycopg = None

NEVER_BY_COUNT = 2**31


if psycopg is not None:

    class PreparedCursor(psycopg.Cursor):
        """psycopg's server-binding cursor with every statement prepared."""

        def execute(self, query: Any, params: Any = None, *, prepare: bool | None = True,
                    binary: bool | None = None) -> PreparedCursor:
            return super().execute(query, params, prepare=prepare, binary=binary)

        def _send_query_prepared(self, name: bytes, pgq: Any, *,
                                 binary: bool | None = None) -> None:
            # psycopg (3.3) records the query it sends only on the unprepared path; Django's
            # query log and ``CaptureQueriesContext`` read it from there (its
            # ``last_executed_query``), and would get None. The text logged is the
            # statement with its ``$n`` parameter markers.
            self._query = pgq
            super()._send_query_prepared(name, pgq, binary=binary)


def prepared_cursor() -> Any:
    """A cursor (use it as a context manager) whose statements the server prepares, on
    PostgreSQL; Django's own cursor elsewhere."""
    if psycopg is None or connection.vendor != "postgresql":
        return connection.cursor()
    connection.ensure_connection()
    raw = connection.connection
    if not isinstance(raw, psycopg.Connection):
        return connection.cursor()
    if raw.prepare_threshold is None:
        # Django turns preparing off on its connections (``None``), which also refuses an
        # explicit ``prepare=True``. A number turns it on for server-binding cursors only:
        # Django's own cursors bind on the client and never prepare, and this one asks for
        # every statement, so the number itself is never reached.
        raw.prepare_threshold = NEVER_BY_COUNT
    with connection.wrap_database_errors:
        # What ``connection.cursor()`` does with the cursor it creates: Django's wrapper
        # (execute wrappers, the query log when it is on, database errors translated).
        return connection._prepare_cursor(PreparedCursor(raw))
