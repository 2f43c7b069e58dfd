"""The typed client messages of the table socket and the shared cache counter, without a
socket: what ``parse`` accepts, and what a refusal answers to."""
from __future__ import annotations

import pytest
from django.core.cache import cache

from core.cache import count_hit, read_count
from core.sockets import BadMessage
from games.messages import Action, AddBot, Ping, Rematch, Simple, Sit


def test_an_action_is_parsed_into_its_fields():
    assert Action.parse({"type": "action", "action": "pass", "version": 3, "id": "m1"}) == \
        Action(id="m1", action="pass", version=3)


@pytest.mark.parametrize("data,reply_to", [
    ({"action": "pass", "version": 3}, None),
    ({"action": "pass", "version": True, "id": "m1"}, "m1"),
    ({"action": "pass", "version": "3", "id": "m1"}, "m1"),
    ({"action": 5, "version": 3, "id": "m1"}, "m1"),
    ({"action": "pass", "version": 3, "id": ""}, None),
    ({"action": "pass", "version": 3, "id": "x" * 41}, None),  # (not echoed whole)
    ({"action": "pass", "version": 3, "id": 7}, None),
])
def test_a_malformed_action_is_refused_answering_its_text_id(data, reply_to):
    with pytest.raises(BadMessage) as refused:
        Action.parse(data)
    assert refused.value.reply_to == reply_to


def test_the_small_messages_check_their_fields():
    assert Simple.parse({"id": "h-1"}) == Simple(id="h-1")
    assert Simple.parse({"id": None}) == Simple.parse({}) == Simple(id=None)
    # an id is text of 1 to 40 characters (one not was answered as if none had come)
    for bad in (4, 2 ** 70, 1.5, ["x"], {"a": 1}, True, "", "x" * 41):
        with pytest.raises(BadMessage):
            Simple.parse({"id": bad})
    assert Rematch.parse({"id": "r"}) == Rematch(id="r", accept=True)
    assert Sit.parse({}) == Sit(id=None, seat=None)
    assert AddBot.parse({"seat": 1, "level": 2}) == AddBot(id=None, seat=1, level=2)
    assert Ping.parse({"t": "soon"}) == Ping(t=None)
    for cls, data in ((Rematch, {"accept": None}), (Sit, {"seat": True}),
                      (AddBot, {"seat": 1, "level": False}), (AddBot, {"seat": 1})):
        with pytest.raises(BadMessage):
            cls.parse(data)


def test_the_counter_counts_within_its_expiry():
    cache.delete("test:counter")
    assert [count_hit("test:counter", 60) for _ in range(3)] == [1, 2, 3]
    cache.delete("test:counter")
    assert count_hit("test:counter", 60) == 1


def _hit_in_threads(key: str, threads: int, hits: int) -> list[int]:
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(threads) as pool:
        runs = [pool.submit(lambda: [count_hit(key, 60) for _ in range(hits)])
                for _ in range(threads)]
        return [n for run in runs for n in run.result()]


def _hit_in_a_process(key: str, out) -> None:
    out.put(_hit_in_threads(key, 8, 25))


def test_the_counter_loses_no_hit_sent_at_once_on_the_run_commands_file_cache(tmp_path):
    """The run command's cache is files (no Redis): its incr reads the count and writes it
    back, so calls at once counted once and parallel requests passed every rate limit (650
    calls in a minute on a token allowed 600)."""
    import multiprocessing

    from django.test import override_settings

    files = {"default": {"BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
                         "LOCATION": str(tmp_path)}}
    with override_settings(CACHES=files):
        out = multiprocessing.get_context("fork").Queue()
        workers = [multiprocessing.get_context("fork").Process(
            target=_hit_in_a_process, args=("test:burst", out)) for _ in range(2)]
        for w in workers:
            w.start()
        seen = _hit_in_threads("test:burst", 8, 25)
        for w in workers:
            seen += out.get(timeout=60)
            w.join(timeout=60)
        # 600 hits from two processes and this one, eight threads each: each count once
        assert sorted(seen) == list(range(1, 601))
        assert read_count("test:burst") == 600


def test_the_counter_ends_its_window_on_the_run_commands_file_cache(tmp_path):
    """The file cache has no incr of its own, and Django's wrote the count back with the
    default expiry (300 s): each hit moved the end of the window 5 minutes out, and a player
    who had sent six chat lines in 10 s was still refused minutes later (an outside audit).
    The window now ends where its first hit put it, whatever the hits after."""
    import time

    from django.test import override_settings

    files = {"default": {"BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
                         "LOCATION": str(tmp_path)}}
    with override_settings(CACHES=files):
        assert [count_hit("test:window", 1) for _ in range(6)] == [1, 2, 3, 4, 5, 6]
        assert read_count("test:window") == 6
        time.sleep(1.2)  # the window of one second is over
        assert read_count("test:window") == 0
        assert count_hit("test:window", 1) == 1
