"""The Redis pub/sub channel layer, with each received message decoded once per process.

channels_redis's ``RedisPubSubChannelLayer`` hands the raw bytes of a group message to the
queue of every channel of the group in this process, and each channel's ``receive`` decodes
them again: a move's ``table.frames`` message (every seat's frame, about 5 kB) was decoded
once per socket of the table, some 180 us each (``bench/frame_cost.py``). Here ``deserialize``
remembers the messages it decoded last, by the identity of their bytes (the one object
queued for every channel), and the sockets share the decoded message. Consumers only read
the messages they get (none writes into one; ``tests/test_layers_shared.py`` checks the
handlers), so sharing is safe. Bytes received twice (a second publish) are new objects and
are decoded again.
"""
from __future__ import annotations

from collections import OrderedDict
from typing import Any

from channels_redis.pubsub import RedisPubSubChannelLayer

# Messages remembered: a message is read by its group's sockets within the same turn of the
# event loop's receiving task, so a few suffice; more keeps the bytes alive longer.
REMEMBERED = 64


class SharedPubSubChannelLayer(RedisPubSubChannelLayer):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # id(bytes) -> (the bytes, kept alive so the id stays theirs; the decoded message)
        self._decoded: OrderedDict[int, tuple[bytes, dict[str, Any]]] = OrderedDict()

    def deserialize(self, message: bytes) -> dict[str, Any]:
        known = self._decoded.get(id(message))
        if known is not None and known[0] is message:
            return known[1]
        decoded = super().deserialize(message)
        self._decoded[id(message)] = (message, decoded)
        if len(self._decoded) > REMEMBERED:
            self._decoded.popitem(last=False)
        return decoded
