"""The channel layers hand one message to every socket of a group as one shared object: the
in-memory layer copies a group message once (not once per channel), the pub/sub layer
decodes a received message once per process (``ginsite.layers``). Safe because no consumer
handler writes into the message it gets, which the last test checks in the code."""
from __future__ import annotations

import ast
import pathlib

import msgpack
import pytest

from ginsite import layers
from ginsite.relay import RelayChannelLayer

ROOT = pathlib.Path(__file__).resolve().parents[1]
MUTATING = {"pop", "popitem", "update", "setdefault", "clear", "append", "extend", "insert",
            "remove", "sort", "reverse", "add", "discard"}


async def test_in_memory_group_send_copies_once_for_the_group():
    layer = RelayChannelLayer()
    names = [await layer.new_channel() for _ in range(3)]
    for name in names:
        await layer.group_add("g", name)
    message = {"type": "table.frames", "frames": {"0": {"hand": ["AS"]}}}
    await layer.group_send("g", message)
    message["frames"]["0"]["hand"].append("KD")  # the sender's later change stays out
    got = [await layer.receive(name) for name in names]
    assert got[0] == {"type": "table.frames", "frames": {"0": {"hand": ["AS"]}}}
    assert got[0] is got[1] is got[2]
    await layer.group_discard("g", names[0])
    await layer.group_send("g", {"type": "x"})
    assert [await layer.receive(name) for name in names[1:]] == [{"type": "x"}] * 2


async def test_in_memory_group_send_skips_a_full_channel():
    layer = RelayChannelLayer(capacity=1)
    full, free = await layer.new_channel(), await layer.new_channel()
    for name in (full, free):
        await layer.group_add("g", name)
    await layer.group_send("g", {"type": "a"})
    await layer.receive(free)
    await layer.group_send("g", {"type": "b"})  # ``full`` still holds "a": it misses "b"
    assert await layer.receive(full) == {"type": "a"}
    assert await layer.receive(free) == {"type": "b"}


def test_pubsub_layer_decodes_each_received_message_once():
    layer = layers.SharedPubSubChannelLayer(hosts=["redis://127.0.0.1:6379/0"])
    raw = layer.serialize({"type": "table.frames", "n": [1, 2]})
    first = layer.deserialize(raw)
    assert first == {"type": "table.frames", "n": [1, 2]}
    assert layer.deserialize(raw) is first  # the same bytes: every channel of the group
    again = bytes(bytearray(raw))  # equal bytes of another publish: decoded afresh
    assert layer.deserialize(again) == first and layer.deserialize(again) is not first
    for n in range(layers.REMEMBERED + 1):
        layer.deserialize(msgpack.packb({"type": "t", "n": n}))
    assert layer.deserialize(raw) is not first  # forgotten: decoded again, still right
    assert layer.deserialize(raw) == first


def _handlers(path: pathlib.Path):
    tree = ast.parse(path.read_text())
    for cls in (n for n in tree.body if isinstance(n, ast.ClassDef)):
        for fn in cls.body:
            if isinstance(fn, ast.AsyncFunctionDef) and [a.arg for a in fn.args.args][1:2] == [
                    "event"]:
                yield fn


def _root_name(node):
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


@pytest.mark.parametrize("path", ["games/consumers.py", "social/consumers.py"])
def test_no_consumer_handler_writes_into_its_message(path):
    handlers = list(_handlers(ROOT / path))
    assert handlers  # the scan found the channel-layer handlers
    for fn in handlers:
        for node in ast.walk(fn):
            targets = []
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
                targets = getattr(node, "targets", None) or [node.target]
            for target in targets:
                assert not (isinstance(target, (ast.Subscript, ast.Attribute))
                            and _root_name(target) == "event"), (path, fn.name, node.lineno)
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in MUTATING):
                assert _root_name(node.func.value) != "event", (path, fn.name, node.lineno)
