"""The fault suite, outages of the database and of the whole site (the suite's plan and
what must hold after each fault: tests/games/test_faults.py): PostgreSQL stopped for a turn,
and every process of the site stopped and started again."""
from __future__ import annotations

import signal
import time

import pytest
from django.db import connection

from tests.support.faults import FAULT_SUITE
from tests.support.faults.checks import check_health as _check_health
from tests.support.faults.checks import probe_health as _probe_health
from tests.support.faults.checks import settle_and_check, wait_all_seats_move
from tests.support.faults.checks import start_play as _start
from tests.support.faults.checks import table_versions as _versions

pytestmark = FAULT_SUITE


OUTAGE = 15.0  # seconds PostgreSQL, or every process, is down: a whole turn


def test_postgresql_stopped_for_a_turn(pg_site, make_user):
    """PostgreSQL stopped (``pg_ctl stop -m immediate``) for 15 s, a whole turn, while
    everyone keeps their sockets open, then started again: nobody is charged a timeout (the
    time is given back before any deadline is applied, on the sockets, the sweep or the
    worker), every move refused meanwhile is answered within 3 s and wins when sent again,
    /healthz answers every poll within 1 s (503 during, 200 within 5 s after), no socket
    closes with 1011, and every table moves on."""
    site = pg_site
    games, crowd = _start(site, make_user)
    try:
        probes = _probe_health(site)
        connection.close()
        down_at = time.monotonic()
        site.pg.stop("immediate")
        time.sleep(OUTAGE)
        up_at = time.monotonic()
        site.pg.start()
        _check_health(probes, down_at, up_at)
        wait_all_seats_move(games, _versions(games), "after PostgreSQL came back")
        wait_all_seats_move(games, _versions(games), "and again")
        # the connected players' sockets stayed open through the outage
        reconnected = [p.name for g in games for p in g.players if len(p.connections) > 1]
        assert not reconnected, f"sockets that closed: {reconnected}"
    except BaseException:
        crowd.stop()
        raise
    settle_and_check(crowd, games)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["sigterm", "kill-9"])
def test_every_process_stopped_and_started_again(pg_site, make_user, sig):
    """Every process of the site (both Daphnes, the worker and its beat, Redis and
    PostgreSQL) gets SIGTERM, or SIGKILL, with games in progress; 15 s later all start again
    on their ports, as their supervisors would. The players reconnect on their own: nobody is
    charged a timeout for the time the site was away, /healthz answers within 1 s and 200
    within 5 s of the restart, no socket closes with 1011, and every table moves on."""
    site = pg_site
    games, crowd = _start(site, make_user)
    try:
        probes = _probe_health(site)
        down_at = time.monotonic()
        site.stop_everything(sig)
        time.sleep(max(0.0, OUTAGE - (time.monotonic() - down_at)))
        restart_at = time.monotonic()
        site.start_everything()
        up_at = time.monotonic()
        print(f"every process stopped for {restart_at - down_at:.1f} s, back in "
              f"{up_at - restart_at:.1f} s")
        # the new Daphnes are on the same ports: the probes carry on
        _check_health(probes, down_at, up_at, during_code=None, fault_end=restart_at)
        wait_all_seats_move(games, _versions(games), "after the restart")
        wait_all_seats_move(games, _versions(games), "and again")
    except BaseException:
        crowd.stop()
        raise
    settle_and_check(crowd, games)
