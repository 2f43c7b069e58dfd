"""The embedded default's broker (kombu's filesystem transport) writes each message whole
before any consumer can take it (``ginsite/broker.py``): kombu's own transport let a worker
read a message file while it was still empty and stop with "Unrecoverable error"."""
from __future__ import annotations

import os
from queue import Empty

import pytest
from django.conf import settings
from kombu import Connection

from ginsite import broker


def _connection(tmp_path):
    folder = tmp_path / "queue"
    folder.mkdir()
    return folder, Connection(
        "filesystem://", transport="ginsite.broker:Transport",
        transport_options={"data_folder_in": str(folder), "data_folder_out": str(folder),
                           "control_folder": str(tmp_path / "control")})


def test_a_message_is_never_visible_to_a_consumer_before_it_is_whole(tmp_path, monkeypatch):
    folder, conn = _connection(tmp_path)
    seen_before_rename = []
    real_replace = os.replace

    def replace(src, dst):
        names = os.listdir(folder)
        seen_before_rename.append(names)
        # the only file is the hidden partial one, complete, and a consumer ignores it
        assert len(names) == 1 and names[0].startswith(".") and names[0].endswith(".part")
        assert os.path.getsize(src) > 0
        with pytest.raises(Empty):
            conn.default_channel._get("tasks")
        real_replace(src, dst)

    monkeypatch.setattr(broker.os, "replace", replace)
    with conn:
        queue = conn.SimpleQueue("tasks")
        queue.put({"task": "games.sweep", "args": [1, 2]})
        message = queue.get(timeout=2)
        assert message.payload == {"task": "games.sweep", "args": [1, 2]}
        message.ack()
        queue.close()
    assert seen_before_rename and not [n for n in os.listdir(folder) if n.endswith(".part")]


def test_a_failed_write_leaves_nothing_behind(tmp_path, monkeypatch):
    folder, conn = _connection(tmp_path)

    def fail(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(broker.os, "replace", fail)
    with conn, pytest.raises(Exception, match="Cannot add file"):
        conn.default_channel._put("tasks", {"task": "x"})
    assert os.listdir(folder) == []


@pytest.mark.skipif(bool(os.environ.get("REDIS_URL")), reason="the embedded default only")
def test_the_embedded_default_uses_it():
    assert settings.CELERY_BROKER_URL == "filesystem://"
    assert settings.CELERY_BROKER_TRANSPORT == "ginsite.broker:Transport"


def test_connecting_warns_of_no_missing_hostname(tmp_path, caplog):
    """A folder has no host: each process that connected used to log kombu's warning "No
    hostname was supplied. Reverting to default 'localhost'" on the run command's console."""
    _, conn = _connection(tmp_path)
    with conn:
        conn.SimpleQueue("tasks").put({"task": "x"})
        info = conn.info()
    assert info["hostname"] is None
    assert not [r for r in caplog.records if "hostname" in r.getMessage()]
