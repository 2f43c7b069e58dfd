"""PostgreSQL: compress the table state with lz4 instead of pglz.

Every move rewrites the table's state (10-30 KB of JSON, more as a game's history grows),
which PostgreSQL compresses when it moves the value out of line. With the default pglz that
compression was the largest cost of a move inside the database (docs/operations.md,
"Measured figures"). PostgreSQL 14+
built with lz4 (Debian's and the official images are); elsewhere, and on SQLite, nothing
changes.
"""
from django.db import migrations


def use_lz4(apps, schema_editor):
    connection = schema_editor.connection
    if connection.vendor != "postgresql" or connection.pg_version < 140000:
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' "
                       "AND 'lz4' = ANY(enumvals)")
        if cursor.fetchone() is None:  # built without lz4
            return
        table = schema_editor.quote_name(apps.get_model("games", "Table")._meta.db_table)
        cursor.execute(f"ALTER TABLE {table} ALTER COLUMN state SET COMPRESSION lz4")


def use_default(apps, schema_editor):
    connection = schema_editor.connection
    if connection.vendor != "postgresql" or connection.pg_version < 140000:
        return
    table = schema_editor.quote_name(apps.get_model("games", "Table")._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(f"ALTER TABLE {table} ALTER COLUMN state SET COMPRESSION DEFAULT")


class Migration(migrations.Migration):
    dependencies = [("games", "0003_action_client_id")]
    operations = [migrations.RunPython(use_lz4, use_default, elidable=False)]
