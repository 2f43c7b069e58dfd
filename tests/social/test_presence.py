"""Presence in the shared cache: connections, heartbeats, expiry, sweeping, playing."""
import pytest

from social import presence
from social.models import LastSeen

pytestmark = pytest.mark.django_db


class Clock:
    def __init__(self, monkeypatch):
        import time

        self.now = time.time()
        monkeypatch.setattr(presence.time, "time", lambda: self.now)

    def advance(self, seconds):
        self.now += seconds


@pytest.fixture
def clock(monkeypatch):
    return Clock(monkeypatch)


@pytest.fixture
def told(monkeypatch):
    """Frames that would go to the notification sockets: (user_ids, frame)."""
    sent = []
    monkeypatch.setattr("social.notify.notify_users", lambda ids, frame: sent.append((ids, frame)))
    return sent


def state(user):
    return presence.presence_of([user.pk])[user.pk]


def test_connections_and_transitions(alice, clock):
    assert state(alice).state == "offline" and state(alice).last_seen is None
    assert presence.presence_connect(alice.pk, "tab1") is True
    assert presence.presence_connect(alice.pk, "tab2") is False
    assert state(alice).state == "online"
    assert presence.presence_disconnect(alice.pk, "tab1") is False
    assert state(alice).state == "online"
    assert presence.presence_disconnect(alice.pk, "tab2") is True
    offline = state(alice)
    assert offline.state == "offline" and offline.last_seen is not None
    assert presence.presence_disconnect(alice.pk, "tab2") is True  # twice is harmless


def test_a_missed_disconnect_expires(alice, bob, clock, settings, told, contacts):
    settings.SOCIAL_PRESENCE_TTL = 60
    presence.presence_connect(alice.pk, "crashed-tab")
    clock.advance(30)
    presence.presence_heartbeat(alice.pk, "crashed-tab")
    clock.advance(59)
    assert state(alice).state == "online"
    clock.advance(2)  # 61 s after the last heartbeat, no disconnect ever came
    assert state(alice).state == "offline"
    assert presence.presence_sweep() == [alice.pk]
    assert abs(state(alice).last_seen.timestamp() - (clock.now - 61)) < 1
    (ids, frame), = [t for t in told if t[1]["type"] == "presence"]
    assert ids == [bob.pk] and frame["state"] == "offline"
    assert presence.presence_sweep() == []  # safe to run again


def test_sweep_keeps_users_with_a_live_tab(alice, clock, settings):
    settings.SOCIAL_PRESENCE_TTL = 60
    presence.presence_connect(alice.pk, "old")
    clock.advance(50)
    presence.presence_connect(alice.pk, "new")
    clock.advance(20)
    assert presence.presence_sweep() == []
    assert state(alice).state == "online"


def test_heartbeat_after_lapse_comes_back_online(alice, clock, settings):
    settings.SOCIAL_PRESENCE_TTL = 60
    presence.presence_connect(alice.pk, "tab")
    clock.advance(120)
    assert presence.presence_heartbeat(alice.pk, "tab") is True
    assert state(alice).state == "online"


def test_playing_hook_and_table_check(alice, told, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        presence.presence_set_playing(alice.pk, 7, "/tables/7/")
    assert presence.presence_playing(alice.pk) == {"table_id": 7, "url": "/tables/7/",
                                                   "waiting": False}
    playing = state(alice)
    assert playing.state == "playing" and playing.table_url == "/tables/7/"
    assert playing.as_frame()["table"] == {"id": 7, "url": "/tables/7/", "waiting": False}
    presence.presence_clear_playing(alice.pk, table_id=8)  # another table: no change
    assert state(alice).state == "playing"
    presence.presence_clear_playing(alice.pk, table_id=7)
    assert presence.presence_playing(alice.pk) is None
    assert state(alice).state == "offline"


def test_presence_of_many_users_in_constant_queries(make_user, django_assert_num_queries):
    people = [make_user() for _ in range(8)]
    for p in people[:4]:
        presence.presence_connect(p.pk, f"t{p.pk}")
    with django_assert_num_queries(1):  # last seen of the offline ones
        states = presence.presence_of([p.pk for p in people])
    assert [states[p.pk].state for p in people] == ["online"] * 4 + ["offline"] * 4


def test_sweep_task_runs(alice, clock, settings):
    from social.tasks import presence_sweep_task

    settings.SOCIAL_PRESENCE_TTL = 10
    presence.presence_connect(alice.pk, "tab")
    clock.advance(11)
    presence_sweep_task.delay()
    assert state(alice).last_seen is not None


def test_reachable_is_who_has_a_page_open_seen_from_any_process(alice, bob, carol, clock):
    """``games.hooks.reachable``'s answer. The embedded default's worker has a cache of its
    own that never sees a socket's connection: there "last seen", which open sockets write
    at least every LAST_SEEN_WRITE_EVERY seconds, answers."""
    from games import hooks
    from social import conf
    from tests.support.accounts import clear_social_cache

    presence.presence_connect(alice.pk, "tab")  # a new connection writes "last seen" too
    presence.presence_heartbeat(bob.pk, "tab")  # and so does a heartbeat
    assert presence.presence_reachable([alice.pk, bob.pk, carol.pk]) == {alice.pk, bob.pk}
    assert hooks.reachable([alice.pk, carol.pk]) == {alice.pk}
    clear_social_cache()  # the worker's view: no connection at all, only the database
    assert presence.presence_reachable([alice.pk, bob.pk, carol.pk]) == {alice.pk, bob.pk}
    LastSeen.objects.filter(user=alice).delete()  # seen only in the cache (another process)
    assert presence.presence_reachable([alice.pk, bob.pk, carol.pk]) == {bob.pk}
    clock.advance(conf.get("LAST_SEEN_WRITE_EVERY") + conf.get("PRESENCE_TTL") + 1)
    assert presence.presence_reachable([bob.pk]) == set()
    assert presence.presence_reachable([]) == set()


def test_a_process_that_sees_the_sockets_counts_only_live_ones(alice, bob, carol, clock):
    """Where the cache shows connections (Redis, the run command's shared cache), someone who
    left a minute ago is not on the site, though their "last seen" is recent: an arena paired
    players who had closed the page up to two minutes before (seen from outside)."""
    presence.presence_connect(alice.pk, "tab")
    presence.presence_connect(bob.pk, "tab")
    clock.advance(30)
    presence.presence_disconnect(bob.pk, "tab")  # bob leaves: "last seen" is now
    assert LastSeen.objects.filter(user=bob).exists()
    assert presence.presence_reachable([alice.pk, bob.pk, carol.pk]) == {alice.pk}


def test_a_contact_seen_a_moment_ago_reads_just_now():
    """The contacts page read "Last seen 0 minutes ago" (an outside audit); the live list
    already said "just now"."""
    from datetime import timedelta

    from django.utils import timezone

    from social.presence import Presence
    from social.templatetags.social_tags import presence_label

    now = timezone.now()
    assert presence_label(Presence("offline", last_seen=now - timedelta(seconds=20))) \
        == "Last seen just now"
    assert presence_label(Presence("offline", last_seen=now - timedelta(minutes=5))) \
        == "Last seen 5\xa0minutes ago"
