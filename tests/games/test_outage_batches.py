"""The sweep's two steps that grow with the site: the time given back after an outage goes
through the tables in short batches (no move waits behind one UPDATE of every table, no
deadline is applied before the give-back is done, nothing is given twice), and the presence
of players who crossed the grace period is published once a crossing, a bounded number of
tables a pass."""
from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.cache import cache
from django.db import transaction
from django.utils import timezone

from games import services
from games.models import (
    ActionSource,
    ClockOutage,
    Heartbeat,
    Seat,
    Table,
    TableAction,
    grace_seconds,
)
from games.services import clock, presence
from tests.support.tables import start_table

pytestmark = pytest.mark.django_db


def _outage(seconds):
    Heartbeat.objects.filter(name="clocks").update(at=timezone.now() - timedelta(seconds=seconds))


@pytest.fixture
def tables(rooms, make_user):
    """Five playing tables of ten people, their deadlines as dealt."""
    made = [start_table(rooms["classic"], [make_user(), make_user()]) for _ in range(5)]
    return [Table.objects.get(pk=t.pk) for t in made]


def _deadlines(tables):
    return {t.pk: Table.objects.get(pk=t.pk).turn_deadline for t in tables}


def test_the_time_is_given_back_in_batches_once_to_every_table(tables, settings, monkeypatch):
    settings.GAMES_OUTAGE_BATCH = 2
    services.clocks_watched()
    before = _deadlines(tables)
    _outage(40)
    batches = []
    real = clock.give_back_batch

    def counted(outage):
        batches.append(real(outage))
        return batches[-1]

    monkeypatch.setattr(clock, "give_back_batch", counted)
    done = services.clocks_watched()
    assert done is not None and done["extended"] == 5 and 39 < done["gap"] < 42
    assert batches == [2, 2, 1, 0]  # three short transactions, then the end found
    after = _deadlines(tables)
    for pk in before:
        assert 39 < (after[pk] - before[pk]).total_seconds() < 42
    outage = ClockOutage.objects.get()
    assert not outage.pending and outage.done_at is not None and outage.extended == 5
    # the stamp is fresh again: a second look gives nothing more
    assert services.clocks_watched() is None
    assert _deadlines(tables) == after


def test_no_deadline_is_applied_while_a_give_back_is_under_way(tables, settings):
    """A give-back stopped half way (its process died after one batch): the stamp is still
    old, so the next deadline check finishes the give-back before it looks at the turn."""
    settings.GAMES_OUTAGE_BATCH = 2
    services.clocks_watched()
    _outage(30)
    last = tables[-1]
    Table.objects.filter(pk=last.pk).update(turn_deadline=timezone.now() - timedelta(seconds=5))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(clock, "give_back", lambda outage_id: None)  # the process dies here
        assert services.clocks_watched() is None
    outage = ClockOutage.objects.get(pending=True)
    with transaction.atomic():
        assert clock.give_back_batch(outage) == 2  # one batch made it
    version = Table.objects.get(pk=last.pk).version
    assert services.table_timeout(table_id=last.pk) is False  # the socket's timer
    assert Table.objects.get(pk=last.pk).version == version
    assert not TableAction.objects.filter(table=last, source=ActionSource.TIMEOUT).exists()
    left = (Table.objects.get(pk=last.pk).turn_deadline - timezone.now()).total_seconds()
    assert left > 20
    outage.refresh_from_db()
    assert not outage.pending and outage.extended == 5


def test_a_table_that_moved_during_the_give_back_is_not_extended(tables, settings):
    settings.GAMES_OUTAGE_BATCH = 2
    services.clocks_watched()
    _outage(60)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(clock, "give_back", lambda outage_id: None)
        services.clocks_watched()
    moved = tables[-1]
    fresh = timezone.now() + timedelta(seconds=30)
    Table.objects.filter(pk=moved.pk).update(turn_deadline=fresh, updated_at=timezone.now())
    assert services.clocks_watched()["extended"] == 4
    assert Table.objects.get(pk=moved.pk).turn_deadline == fresh


def test_a_slow_give_back_is_not_taken_for_a_second_outage(tables, settings, monkeypatch):
    """Each batch takes 3 s of a 4 s gap limit (100,000 tables on a busy database): the
    processes that waited for it must not find its length as a new gap."""
    settings.GAMES_OUTAGE_BATCH = 1
    services.clocks_watched()
    _outage(30)
    shift = {"s": 0.0}
    real_now = timezone.now

    class Clock:
        @staticmethod
        def now():
            return real_now() + timedelta(seconds=shift["s"])

    real = clock.give_back_batch

    def slow(outage):
        shift["s"] += 3
        return real(outage)

    monkeypatch.setattr(clock, "timezone", Clock)
    monkeypatch.setattr(clock, "give_back_batch", slow)
    before = _deadlines(tables)
    assert services.clocks_watched()["extended"] == 5
    assert services.clocks_watched() is None  # the 18 s it took are not a gap
    after = _deadlines(tables)
    assert all(29 < (after[pk] - before[pk]).total_seconds() < 32 for pk in before)
    assert ClockOutage.objects.count() == 1


@pytest.fixture
def published(settings, monkeypatch):
    """The tables whose presence the sweep publishes, two a pass, from no cursor."""
    settings.GAMES_PRESENCE_PER_SWEEP = 2
    cache.delete(presence.PRESENCE_CURSOR)
    tables = []
    monkeypatch.setattr(presence, "table_presence_publish",
                        lambda *, table_id: tables.append(table_id))
    return tables


def test_presence_is_published_once_a_crossing_and_a_bounded_number_a_pass(
        tables, published):
    now = timezone.now()
    grace = timedelta(seconds=grace_seconds())
    # every player of the five tables went quiet at once (a site-wide stop): one seat a table
    # crossed the grace 10 s ago, its partner is still within it
    for n, table in enumerate(tables):
        seats = list(Seat.objects.filter(table=table).order_by("index"))
        Seat.objects.filter(pk=seats[0].pk).update(last_seen=now - grace - timedelta(seconds=10))
        Seat.objects.filter(pk=seats[1].pk).update(last_seen=now - timedelta(seconds=n))
    passes = [presence.tables_presence_due(now + timedelta(seconds=2 * k)) for k in range(4)]
    assert passes == [2, 2, 1, 0]
    assert sorted(published) == sorted(t.pk for t in tables)  # each once
    # the partners cross later: published on the passes after, once each, two a pass
    published.clear()
    later = now + grace + timedelta(seconds=10)
    passes = [presence.tables_presence_due(later + timedelta(seconds=2 * k)) for k in range(4)]
    assert passes == [2, 2, 1, 0]
    assert sorted(published) == sorted(t.pk for t in tables)


def test_the_sweep_publishes_presence_without_its_cursor_when_the_cache_is_down(
        tables, published, monkeypatch):
    def down(*args, **kwargs):
        raise ConnectionError("cache down")

    monkeypatch.setattr(presence.cache, "get", down)
    monkeypatch.setattr(presence.cache, "set", down)
    now = timezone.now()
    Seat.objects.filter(table=tables[0], index=0).update(
        last_seen=now - timedelta(seconds=grace_seconds() + 5))
    assert presence.tables_presence_due(now) == 1 and published == [tables[0].pk]


def test_the_limit_counts_tables_not_seats(tables, published):
    """Both players of every table left at once: two tables a pass, each published once."""
    now = timezone.now()
    gone = now - timedelta(seconds=grace_seconds() + 5)
    Seat.objects.filter(table__in=tables).update(last_seen=gone)
    passes = [presence.tables_presence_due(now + timedelta(seconds=2 * k)) for k in range(4)]
    assert passes == [2, 2, 1, 0]
    assert sorted(published) == sorted(t.pk for t in tables)


def test_a_long_sweep_pass_is_not_taken_for_an_outage(rooms, make_user, settings, monkeypatch):
    """Nobody is seated anywhere (no socket stamps the heartbeat) and the sweep has a long
    list of late turns: its own pass must not look like a gap to the next deadline check,
    or every running turn would get the pass's length back."""
    import time as clock_time

    from games.services import sweep

    settings.GAMES_OUTAGE_GAP = 1
    late = [start_table(rooms["classic"], [make_user(), make_user()]) for _ in range(3)]
    running = start_table(rooms["classic"], [make_user(), make_user()])
    deadline = Table.objects.get(pk=running.pk).turn_deadline
    Table.objects.filter(pk__in=[t.pk for t in late]).update(
        turn_deadline=timezone.now() - timedelta(seconds=5))
    real = sweep.table_timeout

    def slow(*, table_id):
        clock_time.sleep(0.6)  # a busy database
        return real(table_id=table_id)

    monkeypatch.setattr(sweep, "table_timeout", slow)
    services.clocks_watched()
    done = services.tables_sweep()
    assert done["timeouts"] == 3 and done["extended"] == 0
    assert not ClockOutage.objects.exists()
    assert Table.objects.get(pk=running.pk).turn_deadline == deadline
