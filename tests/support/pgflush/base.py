"""PostgreSQL as the suite uses it (``ginsite/settings/test.py`` with DATABASE_URL): the same
backend, except that a transactional test's flush empties the tables with DELETE instead of
Django's single TRUNCATE of every table.

A TRUNCATE of the site's ~50 tables makes new files for each table and index: about 0.35 s,
after every one of the several hundred transactional tests (consumers, live servers, real
workers), while a DELETE of the few rows a test leaves takes milliseconds. The result is the
same: empty tables, sequences not reset (as with Django's TRUNCATE without RESTART IDENTITY).
Every foreign key Django makes on PostgreSQL is DEFERRABLE INITIALLY DEFERRED, so the order of
the DELETEs does not matter inside the flush's transaction; a flush that asks to reset the
sequences or to cascade keeps Django's TRUNCATE."""
from __future__ import annotations

from django.db.backends.postgresql import base
from django.db.backends.postgresql.operations import DatabaseOperations as PostgresOperations


class DatabaseOperations(PostgresOperations):
    def sql_flush(self, style, tables, *, reset_sequences=False, allow_cascade=False):
        if not tables or reset_sequences or allow_cascade:
            return super().sql_flush(style, tables, reset_sequences=reset_sequences,
                                     allow_cascade=allow_cascade)
        return ["SET CONSTRAINTS ALL DEFERRED;"] + [
            f"{style.SQL_KEYWORD('DELETE FROM')} {style.SQL_FIELD(self.quote_name(t))};"
            for t in tables
        ]


class DatabaseWrapper(base.DatabaseWrapper):
    ops_class = DatabaseOperations
