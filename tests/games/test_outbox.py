"""A service called with an ``Outbox`` (as the table socket calls it) hands its frames back
in it, after the commit, and sends nothing itself; called without one (a Celery task, a
view) it sends them at once. The wire form is the same either way."""
from __future__ import annotations

import pytest

from core import channels
from core.channels import Outbox
from games import services, states, timeouts
from games.exceptions import GameServiceError
from games.models import Table
from tests.support.tables import start_table

pytestmark = pytest.mark.django_db


class Recorder:
    def __init__(self):
        self.sent = []

    async def group_send(self, group, message):
        self.sent.append((group, message))


def _move(table_id):
    table = Table.objects.get(pk=table_id)
    state = states.load(table.state)
    return table, state.to_act, timeouts.safe_action(state)


def test_a_socket_move_hands_its_frames_back(rooms, two_players, monkeypatch,
                                             django_capture_on_commit_callbacks):
    layer = Recorder()
    monkeypatch.setattr(channels, "get_channel_layer", lambda: layer)
    users = dict(enumerate(two_players))
    table = start_table(rooms["classic"], list(two_players))
    layer.sent.clear()

    table, seat, action = _move(table.pk)
    outbox = Outbox()
    with django_capture_on_commit_callbacks(execute=True):
        version = services.table_act(table_id=table.pk, user=users[seat], action=action,
                                     expected_version=table.version, outbox=outbox)
    assert layer.sent == []  # nothing went out behind the socket's back
    [(group, message)] = outbox.take()
    assert group == f"table.{table.pk}"
    assert message["type"] == "table.frames" and message["version"] == version
    outbox_publish = message["publish"]

    # the same move made elsewhere (no outbox) is sent at once, in the same form
    table, seat, action = _move(table.pk)
    with django_capture_on_commit_callbacks(execute=True):
        version = services.table_act(table_id=table.pk, user=users[seat], action=action,
                                     expected_version=table.version)
    [(group, message)] = layer.sent
    assert group == f"table.{table.pk}" and message["version"] == version
    assert set(message) == {"type", "frames", "table_id", "version", "publish"}
    assert message["publish"] != outbox_publish  # names one message (the memo's key)


def test_a_refused_move_leaves_the_outbox_empty(rooms, two_players,
                                                django_capture_on_commit_callbacks):
    table = start_table(rooms["classic"], list(two_players))
    outbox = Outbox()
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(GameServiceError):
        services.table_act(table_id=table.pk, user=two_players[0], action="discard:ZZ",
                           expected_version=table.version - 1, outbox=outbox)
    assert len(outbox) == 0


def test_chat_and_resignation_go_to_the_outbox_too(rooms, two_players,
                                                  django_capture_on_commit_callbacks):
    alice, _ = two_players
    table = start_table(rooms["classic"], list(two_players))
    outbox = Outbox()
    with django_capture_on_commit_callbacks(execute=True):
        services.chat_post(table_id=table.pk, user=alice, text="gg", outbox=outbox)
        services.table_resign(table_id=table.pk, user=alice, outbox=outbox)
    kinds = [m["type"] for _, m in outbox.take()]
    assert kinds == ["table.chat", "table.frames"]


def test_a_computers_move_waits_until_the_players_frames_are_out(
        rooms, make_user, monkeypatch, django_capture_on_commit_callbacks):
    """With an eager Celery the computer's move runs on the spot: it is a follow-up of the
    outbox, so its frames never overtake the player's (a client would see v+2 before v+1)."""
    layer = Recorder()
    monkeypatch.setattr(channels, "get_channel_layer", lambda: layer)
    user = make_user("dora")
    table = services.table_create(user=user, room=rooms["classic"], seconds_per_turn=0,
                                  bot_level=1, target=50)
    table = Table.objects.get(pk=table.pk)
    state = states.load(table.state)
    while state.to_act != 0:  # the computer deals or starts: let it move first
        services.table_bot_move(table_id=table.pk, version=table.version)
        table = Table.objects.get(pk=table.pk)
        state = states.load(table.state)
    for _ in range(4):  # a draw keeps the turn; the discard after it passes it
        layer.sent.clear()
        outbox = Outbox()
        with django_capture_on_commit_callbacks(execute=True):
            mine = services.table_act(table_id=table.pk, user=user,
                                      action=timeouts.safe_action(state),
                                      expected_version=table.version, outbox=outbox)
        table = Table.objects.get(pk=table.pk)
        state = states.load(table.state)
        if state.to_act == 1:
            break
        assert outbox.after == []
    assert state.to_act == 1, "the player's moves never passed the turn"
    assert layer.sent == [] and len(outbox.after) == 1
    assert table.version == mine  # the computer has not moved yet
    assert [m["version"] for _, m in outbox.take()] == [mine]
    with django_capture_on_commit_callbacks(execute=True):
        outbox.run_after_sent()
    assert Table.objects.get(pk=table.pk).version > mine
    sent = [m["version"] for _, m in layer.sent if m["type"] == "table.frames"]
    assert sent and all(v > mine for v in sent)
