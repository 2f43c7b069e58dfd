"""Fixtures of the games tests: the default rooms (transactional tests flush the data
migration's rows), two players and a seeded random generator (the helpers that build and
drive tables are in tests/support/tables.py)."""
from __future__ import annotations

import os
import random
from urllib.parse import urlsplit

import pytest
from django.db import connection

from core import channels as core_channels
from games.models import Room
from games.rooms import ensure_default_rooms
from games.services import analysis as analysis_service
from tests.support.faults.site import PostgresCluster, running_site
from tests.support.servers import wait_for_other_db_sessions_to_end


@pytest.fixture
def rooms(db):
    ensure_default_rooms(Room)
    return {r.slug: r for r in Room.objects.all()}


@pytest.fixture
def two_players(make_user):
    return make_user("alice"), make_user("bob")


@pytest.fixture
def ann(make_user):
    """The player of the offline games' tests."""
    return make_user("ann")


@pytest.fixture
def ann_client(ann):
    """A test client signed in as ``ann``."""
    from django.test import Client

    client = Client()
    client.force_login(ann)
    return client


@pytest.fixture
def rng():
    return random.Random(7)


@pytest.fixture
def frames(monkeypatch):
    """Every notification frame the analysis sends, by user id."""
    sent: dict[int, list[dict]] = {}

    def record(messages):
        for group, message in messages:
            assert group.startswith("user.") and message["type"] == "notify.frame"
            sent.setdefault(int(group.split(".")[1]), []).append(message["frame"])
        return True

    monkeypatch.setattr(core_channels, "send_now", record)
    monkeypatch.setattr(analysis_service, "send_now", record)
    return sent


@pytest.fixture
def people(make_user):
    return make_user("ann"), make_user("bob"), make_user("cleo")


# ------------------------------------------------------------- the fault suite's site
# (tests/games/test_faults.py and test_faults_outage.py; the processes are in
# tests/support/faults/site.py)


@pytest.fixture
def site(rooms, tmp_path):
    """The site on this test's database (the machine's PostgreSQL)."""
    try:
        with running_site(tmp_path) as site:
            yield site
    finally:
        wait_for_other_db_sessions_to_end()


@pytest.fixture
def pg_site(rooms, tmp_path):
    """The site on a PostgreSQL cluster of the test's own, which the test may stop or kill:
    a copy of the test database (migrated, with the rooms); the test's own queries go there
    too while it runs."""
    if not PostgresCluster.available():
        pytest.skip("needs PostgreSQL's initdb and pg_ctl (and runuser when run as root)")
    pg = PostgresCluster()
    saved = dict(connection.settings_dict)
    try:
        parts = urlsplit(os.environ["DATABASE_URL"])
        pg.create(parts._replace(path="/" + saved["NAME"]).geturl())
        connection.close()
        connection.settings_dict.update({"NAME": "gin", "HOST": "127.0.0.1",
                                         "PORT": str(pg.port), "USER": "postgres",
                                         "PASSWORD": ""})
        ensure_default_rooms(Room)
        with running_site(tmp_path, pg.url, pg) as site:
            yield site
    finally:
        connection.close()
        connection.settings_dict.clear()
        connection.settings_dict.update(saved)
        pg.destroy()


