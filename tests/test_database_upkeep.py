"""The suite's databases: what a transactional test's flush leaves for the next test."""
import pytest
from django.core.management import call_command


@pytest.mark.django_db(transaction=True)
def test_the_data_migrations_rows_come_back_after_a_flush():
    """A transactional test ends with a flush, which had deleted the rooms and schedules the
    data migrations made: a later test in the same process then found "There is no such
    game" (seen once the suite ran in several processes, in another order)."""
    from games.models import Room
    from games.rooms import DEFAULT_ROOMS
    from leaderboards.tournaments.models import TournamentSchedule

    call_command("flush", interactive=False, verbosity=0)
    assert sorted(Room.objects.values_list("slug", flat=True)) == sorted(
        r["slug"] for r in DEFAULT_ROOMS)
    assert set(TournamentSchedule.objects.values_list("name", flat=True)) == {
        "Hourly Classic Arena", "Daily Classic Swiss"}
    call_command("flush", interactive=False, verbosity=0)  # (and again: none twice)
    assert Room.objects.count() == len(DEFAULT_ROOMS)
    assert TournamentSchedule.objects.count() == 2
