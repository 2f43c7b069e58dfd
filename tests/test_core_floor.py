"""The shared floor (``core``): the one channel-layer sender and its retry policy, used by
games, social and leaderboards alike; the settings helper; the explicit outbox of a table
socket's service call."""
from __future__ import annotations

import asyncio

import pytest

from core import channels
from core.channels import Outbox
from core.conf import Settings


class Flaky:
    """A channel layer whose first ``fail`` sends to each group raise."""

    def __init__(self, fail: int = 1):
        self.fail = fail
        self.tries: dict[str, int] = {}
        self.sent: list[tuple[str, dict]] = []

    async def group_send(self, group, message):
        self.tries[group] = self.tries.get(group, 0) + 1
        if self.tries[group] <= self.fail:
            raise ConnectionError("channel layer down")
        self.sent.append((group, message))


@pytest.fixture
def layer(monkeypatch):
    def install(fail=1):
        flaky = Flaky(fail)
        monkeypatch.setattr(channels, "get_channel_layer", lambda: flaky)
        return flaky

    monkeypatch.setattr(channels, "RETRY_DELAYS", (0, 0))
    return install


def test_a_failed_send_is_tried_again_and_order_per_group_is_kept(layer):
    flaky = layer(fail=1)
    messages = [("a", {"n": 1}), ("b", {"n": 2}), ("a", {"n": 3})]
    assert asyncio.run(channels.asend(messages)) == []
    assert [m["n"] for g, m in flaky.sent if g == "a"] == [1, 3]
    assert [m["n"] for g, m in flaky.sent if g == "b"] == [2]
    assert flaky.tries == {"a": 3, "b": 2}  # "a": 1 failed, 1 and 3 sent in round two


def test_a_layer_that_stays_down_gives_up_after_three_rounds(layer, caplog):
    flaky = layer(fail=99)
    messages = [("a", {"n": 1}), ("a", {"n": 2}), ("b", {"n": 3})]
    assert asyncio.run(channels.asend(messages)) == messages
    assert flaky.tries == {"a": 3, "b": 3}  # the second "a" waits behind the first
    assert channels.send_now(messages) is False
    assert "group_send to a failed 3 times" in caplog.text


def test_the_waiting_is_bounded_however_many_messages(monkeypatch):
    flaky = Flaky(fail=99)
    monkeypatch.setattr(channels, "get_channel_layer", lambda: flaky)
    slept: list[float] = []

    async def sleep(seconds):
        slept.append(seconds)

    monkeypatch.setattr(channels.asyncio, "sleep", sleep)
    asyncio.run(channels.asend([(f"g{i}", {}) for i in range(50)]))
    assert slept == list(channels.RETRY_DELAYS)


def test_social_notifications_get_the_same_retries(layer):
    from social import notify

    flaky = layer(fail=1)
    notify.notify_users([1, 2, 1], {"type": "hello"})
    assert sorted(g for g, _ in flaky.sent) == ["user.1", "user.2"]


def test_after_commit_sends_only_what_was_committed(layer, db, django_capture_on_commit_callbacks):
    from django.db import transaction

    flaky = layer(fail=0)
    with django_capture_on_commit_callbacks(execute=True):
        channels.send_after_commit("kept", {"n": 1})
    try:
        with transaction.atomic():
            channels.send_after_commit("dropped", {"n": 2})
            raise RuntimeError
    except RuntimeError:
        pass
    assert flaky.sent == [("kept", {"n": 1})]


def test_settings_have_a_default_and_an_override(settings):
    conf = Settings("FLOORTEST", {"LIMIT": 3})
    assert conf.get("LIMIT") == 3
    settings.FLOORTEST_LIMIT = 5
    assert conf.get("LIMIT") == 5
    with pytest.raises(KeyError, match="FLOORTEST has no setting LIMTI"):
        conf.get("LIMTI")


def test_games_and_social_read_their_settings_through_the_floor(settings):
    from games import conf as games_conf
    from social import conf as social_conf

    assert isinstance(games_conf.SETTINGS, Settings) and games_conf.SETTINGS.prefix == "GAMES"
    settings.SOCIAL_HEARTBEAT = 7
    assert social_conf.get("HEARTBEAT") == 7


def test_an_outbox_keeps_its_messages_in_order_until_taken():
    box = Outbox()
    box.add("a", {"n": 1})
    box.extend([("b", {"n": 2})])
    assert len(box) == 2 and list(box) == [("a", {"n": 1}), ("b", {"n": 2})]
    assert box.take() == [("a", {"n": 1}), ("b", {"n": 2})] and len(box) == 0


def test_a_send_to_a_socket_the_client_has_just_closed_is_dropped(monkeypatch):
    """A frame sent as the client closed the socket (a tab shut as the game ended) raised
    autobahn's "Attempt to send on a closed protocol" through the consumer: a traceback in
    the log each time. It is dropped; any other failure still raises."""
    from autobahn.exception import Disconnected
    from channels.generic.websocket import AsyncWebsocketConsumer

    from core.sockets import FramedConsumer

    failure: list[Exception] = [Disconnected("Attempt to send on a closed protocol")]

    async def send(self, text_data=None, bytes_data=None, close=False):
        raise failure[0]

    monkeypatch.setattr(AsyncWebsocketConsumer, "send", send)
    consumer = FramedConsumer()
    asyncio.run(consumer.send(text_data="{}"))
    assert consumer._closed
    failure[0] = ValueError("Socket has not been accepted, so cannot send over it")
    with pytest.raises(ValueError):
        asyncio.run(FramedConsumer().send(text_data="{}"))
