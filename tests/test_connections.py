"""The shared connection store (``core.connections``) under social's presence and the games'
watchers: the embedded cache's variant in the README's pass, Redis's in CI's second pass (the
store follows the configured cache)."""
from __future__ import annotations

import threading
import time
import uuid

import pytest

from core import connections
from core.connections import LocalConnections, RedisConnections, connection_store
from games import watchers


@pytest.fixture
def store(settings):
    return connection_store()


@pytest.fixture
def key():
    return f"test:conns:{uuid.uuid4().hex}"


def test_the_store_follows_the_configured_cache(settings, store):
    expected = RedisConnections if settings.REDIS_URL else LocalConnections
    assert type(store) is expected


def test_hold_gives_the_live_sockets_before_and_drop_those_after(store, key):
    now = time.time()
    assert store.hold(key, "a", now + 60, 120, now) == {}
    assert store.hold(key, "b", now + 60, 120, now) == {"a": pytest.approx(now + 60)}
    assert set(store.hold(key, "a", now + 90, 120, now)) == {"a", "b"}  # a heartbeat
    assert store.drop(key, "a", 120, now) == {"b": pytest.approx(now + 60)}
    assert store.drop(key, "b", 120, now) == {}
    assert store.read([key]) == [{}]


def test_a_lapsed_socket_is_not_live_but_is_read_with_its_deadline(store, key):
    """Presence dates a lapsed user's "last seen" by the deadline of their last socket."""
    now = time.time()
    store.hold(key, "gone", now - 5, 120, now - 65)
    assert store.read([key]) == [{"gone": pytest.approx(now - 5)}]
    assert store.hold(key, "new", now + 60, 120, now) == {}  # the lapsed one does not count
    assert store.drop(key, "new", 120, now) == {}


def test_read_gives_each_holder_in_order(store, key):
    now = time.time()
    store.hold(key + "1", "x", now + 60, 120, now)
    store.hold(key + "3", "y", now + 30, 120, now)
    found = store.read([key + "1", key + "2", key + "3"])
    assert [set(f) for f in found] == [{"x"}, set(), {"y"}]


class SlowCache:
    """The cache with a pause between a read and the write that follows: a hold that did not
    read and write in one step would be caught in it."""

    def __init__(self, real):
        self.real = real

    def get(self, *args, **kwargs):
        found = self.real.get(*args, **kwargs)
        time.sleep(0.005)
        return found

    def __getattr__(self, name):
        return getattr(self.real, name)


def test_sockets_opened_at_once_each_see_a_different_before(store, key, monkeypatch):
    """Two tabs opening together must not both believe they brought the user online: each
    hold reads and writes in one step (a MULTI, or the process lock)."""
    monkeypatch.setattr(connections, "cache", SlowCache(connections.cache))
    now = time.time()
    befores: list[int] = []
    start = threading.Barrier(8)

    def open_one(n):
        start.wait()
        befores.append(len(store.hold(key, f"c{n}", now + 60, 120, now)))

    threads = [threading.Thread(target=open_one, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(befores) == list(range(8))
    assert len(store.read([key])[0]) == 8


def test_the_index_is_a_set_of_holders(store, key):
    assert store.index_any(key) is False
    store.index_add(key, 7)
    store.index_add(key, 3)
    store.index_add(key, 7)
    assert sorted(store.index_members(key)) == [3, 7]
    assert store.index_any(key) is True
    store.index_remove(key, 7)
    store.index_remove(key, 7)
    assert store.index_members(key) == [3]


def test_watchers_count_people_through_the_shared_store():
    table = int(uuid.uuid4().int % 10**9)
    assert watchers.watching(table) == 0
    assert watchers.watch(table, "s1") == 1  # anonymous
    assert watchers.watch(table, "s2") == 2  # another anonymous visitor
    assert watchers.watch(table, "s1") == 2  # a ping keeps it counted once
    assert watchers.watch(table, "s3", 7) == 3  # user 7
    assert watchers.watch(table, "s4", 7) == 3  # user 7's second tab
    assert watchers.watching(table) == 3
    assert watchers.unwatch(table, "s3", 7) == 3
    assert watchers.unwatch(table, "s1") == 2
    assert watchers.unwatch(table, "s1") == 2
    assert watchers.unwatch(table, "s2") == 1
    assert watchers.unwatch(table, "s4", 7) == 0
    assert watchers.watching(table) == 0
