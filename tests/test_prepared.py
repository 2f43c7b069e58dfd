"""``core.prepared``: the move's statements are prepared on PostgreSQL (parsed and planned
once per connection), seen by Django's query capture as any statement, and plain Django
cursors everywhere else."""
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from core.prepared import prepared_cursor

QUERY = "SELECT id, username FROM accounts_user WHERE id = %s"


def _prepared_on_server() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        return [row[0] for row in cursor.fetchall()]


@pytest.mark.django_db
def test_a_statement_is_prepared_once_and_captured_like_any(make_user):
    user = make_user("prepared-a")
    with CaptureQueriesContext(connection) as captured:
        for _ in range(3):
            with prepared_cursor() as cursor:
                cursor.execute(QUERY, [user.pk])
                assert cursor.fetchall() == [(user.pk, "prepared-a")]
    assert len(captured.captured_queries) == 3
    assert all("accounts_user" in q["sql"] for q in captured.captured_queries)
    if connection.vendor != "postgresql":
        return
    prepared = [s for s in _prepared_on_server() if "accounts_user WHERE id = $1" in s]
    assert len(prepared) == 1, prepared  # the second and third runs reused it


@pytest.mark.django_db
def test_other_cursors_stay_unprepared(make_user):
    make_user("prepared-b")
    with connection.cursor() as cursor:
        for _ in range(6):
            cursor.execute("SELECT count(*) FROM accounts_user WHERE username = %s",
                           ["prepared-b"])
    if connection.vendor == "postgresql":
        assert not [s for s in _prepared_on_server() if "username" in s]


@pytest.mark.django_db
def test_errors_are_djangos(make_user):
    from django.db import DatabaseError

    with pytest.raises(DatabaseError), prepared_cursor() as cursor:
        cursor.execute("SELECT no_such_column FROM accounts_user WHERE id = %s", [1])
