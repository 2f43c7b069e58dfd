"""The lobby's rooms (``selectors.rooms_overview``): each room's waiting and playing public
tables and the people online in it, read in a few statements whatever the number of rooms
(each room was read in turn: thirteen statements for the seven rooms)."""
from __future__ import annotations

import pytest
from django.core.cache import cache
from django.utils import timezone

from games import selectors, services
from games.models import Seat, Table, TableStatus

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def no_one_in_the_rooms():
    cache.delete_many([f"games:room-online:{slug}" for slug in
                       ("beginners", "classic", "straight", "oklahoma", "hollywood", "rummy",
                        "rummy-3-4")])


def _by_slug(viewer=None):
    return {r["slug"]: r for r in selectors.rooms_overview(viewer)}


def test_each_room_counts_its_own_public_tables_and_people(rooms, make_user):
    ann, ben, cat, dan, eve = (make_user(n) for n in ("ann", "ben", "cat", "dan", "eve"))
    services.table_create(user=ann, room=rooms["classic"])  # waiting
    playing = services.table_create(user=ben, room=rooms["rummy"])
    services.table_sit(table_id=playing.pk, user=cat)
    hidden = services.table_create(user=dan, room=rooms["rummy"], private=True)
    services.table_sit(table_id=hidden.pk, user=eve, invite=hidden.invite_token)
    assert Table.objects.get(pk=hidden.pk).status == TableStatus.PLAYING
    Seat.objects.filter(user__isnull=False).update(connected=True, last_seen=timezone.now())
    services.room_presence_mark(room=rooms["straight"], user=eve)  # looking at a room page
    got = _by_slug()
    assert (got["classic"]["open_tables"], got["classic"]["playing_tables"]) == (1, 0)
    # the private game counts nowhere, and its players are not shown online
    assert (got["rummy"]["open_tables"], got["rummy"]["playing_tables"]) == (0, 1)
    assert got["classic"]["online"] == 1 and got["rummy"]["online"] == 2
    assert got["straight"]["online"] == 1
    assert got["oklahoma"]["online"] == got["hollywood"]["open_tables"] == 0
    assert [p["username"] for p in selectors.room_online(rooms["rummy"])] == ["ben", "cat"]


def test_the_lobby_reads_its_rooms_in_five_statements(rooms, make_user,
                                                      django_assert_num_queries):
    viewer = make_user("viewer")
    for room in rooms.values():
        host = make_user()
        services.table_create(user=host, room=room, seat_count=room.min_seats)
        Seat.objects.filter(user=host).update(connected=True, last_seen=timezone.now())
        services.room_presence_mark(room=room, user=make_user())
    # the viewer's blocks, the tables' counts, the rooms, the seated people, then who of the
    # people online the viewer may see
    with django_assert_num_queries(5):
        got = _by_slug(viewer)
    assert all(r["online"] == 2 and r["open_tables"] == 1 for r in got.values())
