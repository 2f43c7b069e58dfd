"""No turn is lost and no outage costs a player: computers' deadlines, stopped clocks after a
lost frame, time given back after an outage, unheard players, the timer after a timeout."""
from __future__ import annotations

import pathlib
import re
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from core import channels
from games import conf as games_conf
from games import selectors, services, tasks
from games.models import ActionSource, Heartbeat, Seat, Table, TableAction, TableStatus
from tests.support.tables import play_one, start_table, state_of

pytestmark = pytest.mark.django_db(transaction=True)


def _expire(table_id, seconds=2):
    Table.objects.filter(pk=table_id).update(
        turn_deadline=timezone.now() - timedelta(seconds=seconds)
    )


def _bot_table(rooms, user, monkeypatch):
    """A table against an Easy computer whose queued moves are lost (a broker that drops
    them): only deadlines can bring the computer's moves. (Dropped here rather than by a
    ``memory://`` broker setting, which the Celery app kept for the rest of the process, so
    that test_worker's task later went nowhere.)"""
    monkeypatch.setattr(tasks.table_bot_move, "apply_async", lambda *args, **kwargs: None)
    table = services.table_create(user=user, room=rooms["classic"], seconds_per_turn=30)
    services.table_add_bot(table_id=table.pk, user=user, seat=1, level=1)
    return Table.objects.get(pk=table.pk)


def test_a_lost_computer_move_is_played_when_its_deadline_passes(rooms, make_user,
                                                                monkeypatch):
    alice = make_user("alice")
    table = _bot_table(rooms, alice, monkeypatch)
    while state_of(table.pk).to_act != 1:
        play_one(table.pk, {0: alice})
    table.refresh_from_db()
    assert table.turn_deadline is not None and table.deadline_seat == 1
    # the computer's deadline is the server's own: clients are shown no clock for it
    snapshot = selectors.table_snapshot(table.pk, alice, 0)
    assert snapshot["clock"] is None
    version = table.version
    assert services.tables_sweep()["timeouts"] == 0  # not due yet
    _expire(table.pk)
    services.tables_sweep()
    table.refresh_from_db()
    assert table.version > version
    moves = TableAction.objects.filter(table=table, version=version + 1)
    assert moves.get().source == ActionSource.BOT
    # played once: the move's own task arriving late changes nothing
    assert services.table_bot_move(table_id=table.pk, version=version) is False


def test_the_turn_after_a_timeout_gets_no_first_turn_extra(rooms, two_players):
    alice, bob = two_players
    table = start_table(rooms["classic"], [alice, bob], seconds=15)
    table.refresh_from_db()
    # the first turn of the game has 10 s more
    first = (table.turn_deadline - timezone.now()).total_seconds()
    assert 23 < first <= 25
    _expire(table.pk)
    assert services.table_timeout(table_id=table.pk) is True
    table.refresh_from_db()
    after = (table.turn_deadline - timezone.now()).total_seconds()
    assert 13 < after <= 15


def test_a_snapshot_marks_the_moves_played_on_a_timeout(rooms, two_players):
    """A page opened mid-hand rebuilds its log from the view's history: the snapshot says
    which of those events the server played on a timeout (before, a reconnected player read
    them as their own moves)."""
    alice, bob = two_players
    table = start_table(rooms["classic"], [alice, bob], seconds=15)
    play_one(table.pk, {0: alice, 1: bob})
    start = len(state_of(table.pk).hand_history)
    timed = state_of(table.pk).to_act
    _expire(table.pk)
    assert services.table_timeout(table_id=table.pk) is True
    end = len(state_of(table.pk).hand_history)
    play_one(table.pk, {0: alice, 1: bob})
    for user, seat in ((alice, 0), (bob, 1), (None, None)):
        snapshot = selectors.table_snapshot(table.pk, user, seat)
        assert snapshot["timed_out"] == [[start, end]]
        marked = snapshot["view"]["history"][start:end]
        assert marked and {e["data"]["seat"] for e in marked} == {timed}
    # the next hand starts with no marks
    while state_of(table.pk).hand_number == 1:
        play_one(table.pk, {0: alice, 1: bob})
    assert selectors.table_snapshot(table.pk, alice, 0)["timed_out"] == []


def test_a_new_hands_first_turn_gets_the_extra_too(rooms, two_players):
    """The next hand's clock ran while its players read the last hand's result (a new
    player saw "4 s" under the hand's panel), and a player who ended one hand and acted
    first in the next kept the old turn's deadline."""
    alice, bob = two_players
    table = start_table(rooms["classic"], [alice, bob], seconds=15)
    while state_of(table.pk).hand_number == 1:
        table.refresh_from_db()
        started = table.turn_started_at
        play_one(table.pk, {0: alice, 1: bob})
    table.refresh_from_db()
    state = state_of(table.pk)
    assert state.hand_number == 2 and len(state.hand_history) == 1  # just dealt
    left = (table.turn_deadline - timezone.now()).total_seconds()
    assert 15 + games_conf.get("FIRST_TURN_EXTRA") - 5 < left <= 25, left
    assert table.turn_started_at > started
    # and the hand's next turns are whole turns without it
    play_one(table.pk, {0: alice, 1: bob})
    table.refresh_from_db()
    assert (table.turn_deadline - timezone.now()).total_seconds() <= 15


def test_a_lost_state_frame_stops_the_clock_until_the_player_sees_the_table(
    rooms, two_players
):
    alice, bob = two_players
    table = start_table(rooms["classic"], [alice, bob])
    table.refresh_from_db()
    seat = table.deadline_seat
    assert services.table_state_undelivered(table_id=table.pk, version=table.version - 1) is False
    assert services.table_state_undelivered(table_id=table.pk, version=table.version) is True
    table.refresh_from_db()
    assert table.turn_deadline is None and table.deadline_seat == seat
    _expire_none = services.tables_sweep()
    assert _expire_none["timeouts"] == 0
    # another seat's snapshot does not start it
    assert services.table_clock_resume(table_id=table.pk, seat=1 - seat) is False
    assert services.table_clock_resume(table_id=table.pk, seat=seat) is True
    table.refresh_from_db()
    left = (table.turn_deadline - timezone.now()).total_seconds()
    assert 28 < left <= 30, "the whole turn"
    assert services.table_clock_resume(table_id=table.pk, seat=seat) is False


def test_a_stopped_clock_restarts_after_the_grace_if_nobody_comes(rooms, two_players):
    alice, bob = two_players
    table = start_table(rooms["classic"], [alice, bob])
    table.refresh_from_db()
    services.table_state_undelivered(table_id=table.pk, version=table.version)
    assert services.tables_sweep()["resumed"] == 0
    Table.objects.filter(pk=table.pk).update(updated_at=timezone.now() - timedelta(seconds=90))
    assert services.tables_sweep()["resumed"] == 1
    assert Table.objects.get(pk=table.pk).turn_deadline is not None


def test_publishing_failure_stops_the_clock(rooms, two_players, monkeypatch):
    alice, bob = two_players
    table = start_table(rooms["classic"], [alice, bob])

    class Down:
        """A channel layer that is down (whatever layer the settings name)."""

        async def group_send(self, group, message):
            raise ConnectionError("channel layer down")

    monkeypatch.setattr(channels, "get_channel_layer", lambda: Down())
    monkeypatch.setattr(channels, "RETRY_DELAYS", (0, 0))
    before = Table.objects.get(pk=table.pk).version
    play_one(table.pk, {0: alice, 1: bob})  # committed; its frames cannot be published
    table.refresh_from_db()
    assert table.version == before + 1
    assert table.turn_deadline is None and table.deadline_seat is not None


def _outage(seconds):
    """Nothing stamped the clocks heartbeat for ``seconds`` (the database or every process
    was down)."""
    Heartbeat.objects.filter(name="clocks").update(
        at=timezone.now() - timedelta(seconds=seconds))


def test_an_outage_gives_the_time_back(rooms, two_players, make_user, settings):
    alice, bob = two_players
    table = start_table(rooms["classic"], [alice, bob])
    table.refresh_from_db()
    deadline = table.turn_deadline
    services.tables_sweep()  # a first run: no gap known
    assert Table.objects.get(pk=table.pk).turn_deadline == deadline
    # nothing watched the clocks for 40 s (the database or every process was down); bob's
    # pings could not be stored meanwhile
    _outage(40)
    Seat.objects.filter(table=table, user=bob).update(
        connected=True, last_seen=timezone.now() - timedelta(seconds=45))
    done = services.tables_sweep()
    assert done["extended"] == 1 and done["timeouts"] == 0
    gained = (Table.objects.get(pk=table.pk).turn_deadline - deadline).total_seconds()
    assert 39 < gained < 42
    # bob is not gone (claimable) because of pings lost in the outage
    quiet = timezone.now() - Seat.objects.get(table=table, user=bob).last_seen
    assert quiet < timedelta(seconds=10)
    # a turn whose deadline had passed before the outage gets nothing back
    _outage(40)
    Table.objects.filter(pk=table.pk).update(
        turn_deadline=timezone.now() - timedelta(seconds=50)
    )
    assert services.tables_sweep()["extended"] == 0


def test_a_deadline_after_an_outage_is_not_applied_before_the_time_is_given_back(
        rooms, two_players):
    """The race of the fault drill: PostgreSQL returns, a player's socket timer fires on the
    deadline it was shown before the sweep ran. The give-back comes first, inside the
    deadline check: no timeout, and the turn has at least ``GAMES_OUTAGE_RESUME`` seconds,
    so the move refused as unavailable during the outage can be sent again and win."""
    alice, bob = two_players
    table = start_table(rooms["classic"], [alice, bob])
    services.clocks_watched()  # the site was alive ...
    _outage(15)  # ... until 15 s ago; the turn had 1 s left then
    Table.objects.filter(pk=table.pk).update(
        turn_deadline=timezone.now() - timedelta(seconds=14))
    table.refresh_from_db()
    version, to_act = table.version, table.deadline_seat
    assert services.table_timeout(table_id=table.pk) is False  # the socket's timer
    table.refresh_from_db()
    assert table.version == version
    assert not TableAction.objects.filter(table=table, source=ActionSource.TIMEOUT).exists()
    left = (table.turn_deadline - timezone.now()).total_seconds()
    resume = games_conf.get("OUTAGE_RESUME")
    assert resume - 1 < left <= resume
    # the move sent during the outage, sent again with its id, is played
    user = alice if to_act == 0 else bob
    state = state_of(table.pk)
    from games.timeouts import safe_action
    assert services.table_act(table_id=table.pk, user=user, action=safe_action(state),
                              expected_version=version, client_id="m-1") == version + 1
    # and a gap is given back once: a second check finds the stamp fresh
    assert services.clocks_watched() is None


def test_a_computers_move_after_an_outage_leaves_the_person_time_to_come_back(
        rooms, make_user, monkeypatch):
    """After a restart the sweep played the computer's move the stop had cut short, and the
    person's turn started on a plain 30 s clock while their page was still reconnecting (an
    outside audit: 10.8 s of 15 left when it was back). That turn now runs at least until the
    outage's ``resume_at``, as the turns running at the outage do; later turns are plain."""
    alice = make_user("alice")
    table = _bot_table(rooms, alice, monkeypatch)
    Table.objects.filter(pk=table.pk).update(seconds_per_turn=15)
    while state_of(table.pk).to_act != 1:
        play_one(table.pk, {0: alice})
    services.clocks_watched()  # the site was alive ...
    _outage(40)  # ... until 40 s ago, and the computer's move was lost with the stop
    _expire(table.pk)
    before = Table.objects.get(pk=table.pk).version
    services.tables_sweep()  # the give-back, then the late move
    assert Table.objects.get(pk=table.pk).version == before + 1
    # the rest of its turn, as its next tasks would play it (its late move may have been a
    # draw or taking the upcard: the deal is the table's random seed)
    while state_of(table.pk).to_act == 1:
        version = Table.objects.get(pk=table.pk).version
        assert services.table_bot_move(table_id=table.pk, version=version)
    table.refresh_from_db()
    assert table.deadline_seat == 0 and state_of(table.pk).to_act == 0
    left = (table.turn_deadline - timezone.now()).total_seconds()
    resume = games_conf.get("OUTAGE_RESUME")
    assert resume - 2 < left <= resume
    # once that moment has passed, a computer's move starts a plain turn again
    Table.objects.filter(pk=table.pk).update(clock_floor=timezone.now() - timedelta(seconds=1))
    while state_of(table.pk).to_act != 1:
        play_one(table.pk, {0: alice})
    asked = []
    while state_of(table.pk).to_act == 1:  # (a draw, then a discard)
        version = Table.objects.get(pk=table.pk).version
        with CaptureQueriesContext(connection) as queries:
            assert services.table_bot_move(table_id=table.pk, version=version)
        asked.append(sum("clockoutage" in q["sql"].lower() for q in queries.captured_queries))
    table.refresh_from_db()
    left = (table.turn_deadline - timezone.now()).total_seconds()
    assert table.deadline_seat == 0 and 13 < left <= 15
    # the floor is the table's own column, read with it: a move asks nothing more
    assert asked == [0, 0]


def test_a_persons_move_after_an_outage_leaves_the_other_time_to_come_back(rooms,
                                                                          two_players):
    """Between people too: the player whose page came back first plays at once, and the
    other's turn starts while their page is still reconnecting: it runs at least until the
    outage's ``resume_at`` (it had a plain 15 s)."""
    alice, bob = two_players
    table = start_table(rooms["classic"], [alice, bob])
    Table.objects.filter(pk=table.pk).update(seconds_per_turn=15)
    services.clocks_watched()  # the site was alive ...
    _outage(40)  # ... until 40 s ago
    services.tables_sweep()  # the give-back
    first = state_of(table.pk).to_act
    while state_of(table.pk).to_act == first:
        play_one(table.pk, {0: alice, 1: bob})
    table.refresh_from_db()
    left = (table.turn_deadline - timezone.now()).total_seconds()
    resume = games_conf.get("OUTAGE_RESUME")
    assert table.deadline_seat == 1 - first and resume - 2 < left <= resume
    # a table that starts after the outage has no floor; this one's passes with its moment
    Table.objects.filter(pk=table.pk).update(clock_floor=timezone.now() - timedelta(seconds=1))
    while state_of(table.pk).to_act != first:
        play_one(table.pk, {0: alice, 1: bob})
    table.refresh_from_db()
    left = (table.turn_deadline - timezone.now()).total_seconds()
    assert table.deadline_seat == first and 13 < left <= 15


def test_an_outage_shorter_than_the_gap_gives_nothing_back(rooms, two_players):
    alice, bob = two_players
    table = start_table(rooms["classic"], [alice, bob])
    services.clocks_watched()
    _outage(2)
    deadline = Table.objects.get(pk=table.pk).turn_deadline
    assert services.clocks_watched() is None
    assert Table.objects.get(pk=table.pk).turn_deadline == deadline


def test_a_connected_player_not_heard_from_gets_the_turn_again(rooms, two_players):
    alice, bob = two_players
    table = start_table(rooms["classic"], [alice, bob])
    table.refresh_from_db()
    seat = table.deadline_seat
    Seat.objects.filter(table=table, index=seat).update(
        connected=True, last_seen=timezone.now() - timedelta(seconds=40)
    )
    _expire(table.pk)
    assert services.table_timeout(table_id=table.pk) is False
    table.refresh_from_db()
    assert table.turn_deadline > timezone.now() + timedelta(seconds=25)
    assert Seat.objects.get(table=table, index=seat).timeouts == 0
    # once gone (60 s without a sign of life) the clock applies again
    Seat.objects.filter(table=table, index=seat).update(
        last_seen=timezone.now() - timedelta(seconds=61)
    )
    _expire(table.pk)
    assert services.table_timeout(table_id=table.pk) is True
    assert Seat.objects.get(table=table, index=seat).timeouts == 1


def test_a_crashed_player_is_gone_sixty_seconds_after_the_last_ping(rooms, two_players):
    alice, bob = two_players
    table = start_table(rooms["classic"], [alice, bob])
    seat = Seat.objects.get(table=table, index=1)
    now = timezone.now()
    seat.connected, seat.last_seen = True, now - timedelta(seconds=59)
    assert not seat.is_gone(now)
    seat.last_seen = now - timedelta(seconds=61)
    assert seat.is_gone(now)
    assert table.status == TableStatus.PLAYING


@pytest.mark.django_db
def test_a_sweep_lock_left_by_a_killed_worker_lapses_within_seconds(monkeypatch, settings):
    """A worker killed while it swept leaves the lock behind: the next runs skip only until
    it lapses (a few seconds), not for a minute, so a late computer's move is not held up.
    (On the local-memory cache, whose clock the test can move.)"""
    from django.core.cache import cache
    from django.core.cache.backends import locmem

    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache",
                                   "LOCATION": "sweep-lock-test"}}
    cache.delete("games:sweep-lock")
    assert tasks.sweep() is not None  # a run: the lock is taken and given back
    assert cache.add("games:sweep-lock", 1, tasks.SWEEP_LOCK_SECONDS)  # ... then killed
    assert tasks.sweep() is None  # the next run skips
    now = locmem.time.time()
    monkeypatch.setattr(locmem.time, "time", lambda: now + 10)  # 10 s on
    assert tasks.sweep() is not None  # the lock has lapsed: the sweep runs again
    cache.delete("games:sweep-lock")


def test_a_restart_leaves_every_page_time_to_reconnect_before_its_turn_runs_out():
    """After a restart every running turn runs at least ``GAMES_OUTAGE_RESUME`` seconds from
    the give-back. The worker's sweep can give the time back before Daphne listens again (up
    to 13 s seen by the outage audit), and a page that lost its socket tries again at most
    its backoff's longest delay (+20 % jitter) apart: with 10 s and a 15 s backoff, a restart
    charged timeouts to players whose page came back 2-4 s too late."""
    sync = (pathlib.Path(__file__).resolve().parents[2] / "static/js/table/sync.js").read_text()
    longest = int(re.search(r"constructor\(\{ base = \d+, max = (\d+)", sync).group(1)) * 1.2
    daphne_start, handshake = 13, 2
    assert games_conf.get("OUTAGE_RESUME") >= daphne_start + longest / 1000 + handshake
