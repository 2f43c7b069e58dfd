"""The typed client messages of the table socket and the shared cache counter, without a
socket: what ``parse`` accepts, and what a refusal answers to."""
from __future__ import annotations

import pytest
from django.core.cache import cache

from core.cache import count_hit
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
