"""Bulk writes shared by the rebuild and the leaderboard snapshots."""
from __future__ import annotations

from typing import Any

from django.db import connection


def insert_rows(model: Any, fields: list[str], rows: list[tuple[Any, ...]],
                batch_size: int = 5000) -> None:
    """Insert many plain rows: PostgreSQL's COPY (much faster than ``bulk_create``, which
    spends its time building and adapting model instances: docs/operations.md, "Measured
    figures"), else ``bulk_create``."""
    if not rows:
        return
    if connection.vendor == "postgresql":
        table = connection.ops.quote_name(model._meta.db_table)
        columns = ", ".join(connection.ops.quote_name(model._meta.get_field(f).column)
                            for f in fields)
        with connection.cursor() as cursor, cursor.cursor.copy(
                f"COPY {table} ({columns}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
        return
    names = [model._meta.get_field(f).attname for f in fields]
    model.objects.bulk_create([model(**dict(zip(names, row, strict=True))) for row in rows],
                              batch_size=batch_size)


def analyze(model: Any) -> None:
    """Refresh PostgreSQL's statistics of a table just rewritten in bulk: with stale ones the
    planner may walk the wrong index (docs/operations.md, "Measured figures") until
    autovacuum gets round to it."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(f"ANALYZE {connection.ops.quote_name(model._meta.db_table)}")
