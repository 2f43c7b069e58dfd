"""The Celery worker's broker connection: a worker whose Redis goes away while it holds
unacknowledged tasks, or runs one, reconnects instead of dying (see ``ginsite.celery``).
The whole worker through a real Redis restart is in ``tests/games/test_faults.py``."""
import os
import uuid

import pytest
import redis
from kombu import Connection

import ginsite.celery  # noqa: F401 - applies the fix

pytestmark = pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="needs REDIS_URL")


def test_a_broken_broker_connection_fails_as_a_connection_error():
    url = os.environ["REDIS_URL"]
    name = f"test-broker-{uuid.uuid4().hex[:10]}"
    conn = Connection(url, transport_options={"visibility_timeout": 30})
    store = redis.Redis.from_url(url)
    tag = None
    try:
        queue = conn.SimpleQueue(name)
        queue.put({"task": "x"})
        message = queue.get(timeout=5)  # delivered, not acknowledged (a running task)
        tag = message.delivery_tag
        # The broker connection broke while the worker waited for tasks: Celery's consumer
        # collects the connection, whose channel could not be closed (its read failed) while
        # the transport is detached from its client, then closes the connection. Closing
        # puts the unacknowledged task back through the detached transport.
        conn._do_close_transport()
        conn.close()  # kombu alone: AttributeError 'NoneType' ... 'hostname'
        # The task that was running finishes and is acknowledged on the old channel: a
        # connection error, which Celery logs and survives (kombu alone: AttributeError).
        with pytest.raises(conn.connection_errors):
            message.ack()
        # The task was not lost: it waits in Redis's unacked set for the visibility timeout.
        assert store.hexists("unacked", tag)
    finally:
        if tag is not None:
            store.hdel("unacked", tag)
            store.zrem("unacked_index", tag)
        store.delete(name)
