"""The site's ASGI application with a move that costs nothing: what Daphne spends on a move
when the move's own work (the table's row lock, the engine, the INSERT and UPDATE, the
frames) is taken away, so that ``bench/ws_load.py --floor`` measures the socket stack's
floor under the real consumer, middleware, channel layer and clients.

Each table's first move is played for real (``games.services.table_act``) and its
``table.frames`` message is kept as the table's template. Every later move of the table
skips the service: the template's frames go out again with the next version and a new
``publish`` id (so every process encodes each audience's text again, as for a real move),
and the version is acknowledged. The clients see a table whose state never changes but
whose versions advance, and check them for gaps and duplicates as usual.

``WSLOAD_FLOOR`` says where the free move runs:

* ``thread``: where the real service runs, in a worker thread (``db_call`` and ``within``),
  so the run measures the socket stack plus the thread hop;
* ``loop``: on the event loop, in the consumer's own handler (no hop, no ``within``): the
  socket stack alone, as if the move's database work cost nothing on the loop.

Started by ``bench/ws_load.py --floor MODE`` (Daphne runs ``bench.ws_floor:application``);
never part of the site.
"""
from __future__ import annotations

import os
import uuid

if os.environ.get("WSLOAD_FLOOR"):  # Daphne's app: Django is set up before the imports below
    from ginsite.asgi import application  # noqa: F401

from core.channels import Outbox  # noqa: E402
from games import broadcast, services  # noqa: E402
from games.consumers import TableConsumer  # noqa: E402

_real_act = services.table_act
_templates: dict[int, dict] = {}  # table id -> its first move's table.frames message


def free_act(*, table_id: int, expected_version: int, outbox: Outbox) -> int:
    """The template's frames again, one version on; no database, no engine."""
    template = _templates[table_id]
    version = expected_version + 1
    frames = {key: {**frame, "version": version} for key, frame in template["frames"].items()}
    outbox.add(broadcast.table_group(table_id),
               {**template, "frames": frames, "version": version, "publish": uuid.uuid4().hex})
    return version


def floor_act(*, table_id: int, user, action: str, expected_version: int,
              client_id: str | None = None, outbox: Outbox) -> int:
    """``table_act`` in the worker thread: real for a table's first move, free after."""
    if table_id in _templates:
        return free_act(table_id=table_id, expected_version=expected_version, outbox=outbox)
    mine = Outbox()
    version = _real_act(table_id=table_id, user=user, action=action,
                        expected_version=expected_version, client_id=client_id, outbox=mine)
    messages = mine.take()
    _templates[table_id] = next(m for _, m in messages if m["type"] == "table.frames")
    outbox.extend(messages)
    return version


def install(mode: str) -> None:
    """Make the moves free in this process (Daphne's), in a worker thread or on the loop."""
    if mode not in ("thread", "loop"):
        raise SystemExit(f"WSLOAD_FLOOR must be thread or loop, not {mode!r}")
    services.table_act = floor_act
    if mode == "loop":
        threaded = TableConsumer.HANDLERS["action"][0]

        async def on_action(self, message):
            if self.seat is None or self.table_id not in _templates:
                await threaded(self, message)
                return
            outbox = Outbox()
            version = free_act(table_id=self.table_id, expected_version=message.version,
                               outbox=outbox)
            await self._deliver(outbox)
            await self._send({"type": "ack", "id": message.id, "version": version})

        # The socket finds its handlers in this table (built when the class was).
        TableConsumer.HANDLERS = {**TableConsumer.HANDLERS,
                                  "action": (on_action, TableConsumer.HANDLERS["action"][1])}


if os.environ.get("WSLOAD_FLOOR"):  # set by bench/ws_load.py for its Daphnes only
    install(os.environ["WSLOAD_FLOOR"])
