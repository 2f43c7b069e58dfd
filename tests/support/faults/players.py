"""The fault suite's players: people at tables and their notification sockets, behaving as
docs/protocol.md asks a client to (reconnect, ping, snapshot on a gap, a refused move sent
again), in an event loop of their own."""
from __future__ import annotations

import asyncio
import json
import random
import threading
import time
from collections import Counter
from dataclasses import dataclass, field

from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from tests.support.protocol import Http, TableClient, choose
from tests.support.servers import DaphneServer

THINK = 0.4  # seconds a scripted player waits before its move
REFUSALS_ALLOWED = {"unavailable", "duplicate", "stale_version"}


# ============================================================================== the players


@dataclass
class Pending:
    id: str
    action: str
    version: int
    sent_at: float
    tries: int = 0
    retry_at: float | None = None


@dataclass
class Player:
    """One person at one table, as docs/protocol.md asks a client to behave. A socket that
    drops is opened again on the next server of ``servers`` (a load balancer's job), after a
    backoff; every connection's frames are kept for the checks."""

    name: str
    http: Http
    table_id: int
    seat: int
    servers: list[DaphneServer]
    rng: random.Random
    server_index: int = 0
    connections: list[TableClient] = field(default_factory=list)
    connected_to: list[DaphneServer] = field(default_factory=list)  # one per connection
    moving: bool = True
    closed: bool = False
    pending: Pending | None = None
    moves: int = 0
    refusals: Counter = field(default_factory=Counter)
    unexpected: list[dict] = field(default_factory=list)
    failed_connects: int = 0
    answers: list = field(default_factory=list)  # (code, seconds from send to answer)
    unanswered: int = 0  # moves given up on with the socket open
    _ids: int = 0
    _shown: int = 0  # the newest version this connection has shown
    _acked: int = 0  # the version of the last ack: no move until a frame shows it
    _sent: set = field(default_factory=set)

    PING = 10.0
    WAIT_PING = 4.0
    MOVE_TIMEOUT = 10.0
    RETRY = (1.0, 2.0, 4.0)

    @property
    def client(self) -> TableClient | None:
        return self.connections[-1] if self.connections else None

    @property
    def latest(self) -> dict | None:
        c = self.client
        return c.latest if c is not None else None

    def my_turn(self) -> bool:
        latest = self.latest
        return bool(
            latest and latest["version"] >= self._acked
            and latest["table"]["status"] == "playing" and latest["view"]
            and latest["view"]["legal_actions"] and latest["view"]["to_act"] == self.seat
        )

    async def run(self) -> None:
        backoff = 0.25
        while not self.closed:
            srv = self.servers[self.server_index % len(self.servers)]
            try:
                client = await TableClient.open(
                    f"{self.name}#{len(self.connections) + 1}@{srv.port}", srv.ws_base,
                    self.table_id, self.http, srv.base,
                )
            except (OSError, InvalidHandshake, AssertionError, TimeoutError):
                # refused (a dead server), an HTTP error, or closed with 4503 at once
                self.failed_connects += 1
                self.server_index += 1
                await asyncio.sleep(backoff * (0.75 + 0.5 * self.rng.random()))
                backoff = min(backoff * 2, 4.0)
                continue
            backoff = 0.25
            self.connections.append(client)
            self.connected_to.append(srv)
            try:
                await self._serve(client)
            except ConnectionClosed:
                pass
            finally:
                if self.closed:
                    await client.close()

    async def _serve(self, c: TableClient) -> None:
        # After a reconnection the snapshot is the truth: the move was applied or it was not.
        self.pending = None
        self._shown = 0
        seen = 0
        last_frame = last_ping = time.monotonic()
        turn_version, turn_seen = None, 0.0
        while not self.closed:
            if c._reader.done():
                return
            now = time.monotonic()
            while seen < len(c.frames):
                frame = c.frames[seen]
                seen += 1
                last_frame = now
                await self._on_frame(c, frame)
            shown = c.latest["version"]
            p = self.pending
            if p is not None and p.retry_at is not None and now >= p.retry_at:
                p.retry_at, p.sent_at = None, now
                await c.send({"type": "action", "action": p.action, "version": p.version,
                              "id": p.id})
            elif p is not None and p.retry_at is None and now - p.sent_at > self.MOVE_TIMEOUT:
                self.unanswered += 1
                self.pending = None  # no answer: forget the move and ask for the truth
                await c.send({"type": "snapshot"})
            waiting = c.latest["table"]["status"] == "playing" and not self.my_turn()
            if now - last_ping >= self.PING or (
                waiting and now - last_frame >= self.WAIT_PING and now - last_ping >= self.WAIT_PING
            ):
                await c.send({"type": "ping", "t": int(time.time() * 1000)})
                last_ping = now
            if self.my_turn() and self.pending is None and self.moving:
                if turn_version != shown:
                    turn_version, turn_seen = shown, now
                elif now - turn_seen >= THINK:
                    self._ids += 1
                    move = Pending(f"{self.name}-{self._ids}", choose(c.latest["view"], self.rng),
                                   shown, now)
                    self.pending = move
                    self._sent.add(move.id)
                    await c.send({"type": "action", "action": move.action,
                                  "version": move.version, "id": move.id})
            c._changed.clear()
            try:
                await asyncio.wait_for(c._changed.wait(), 0.1)
            except TimeoutError:
                pass

    async def _on_frame(self, c: TableClient, frame: dict) -> None:
        kind = frame["type"]
        p = self.pending
        shown = c.latest["version"]  # the client already took this frame into account
        if kind in ("state", "snapshot"):
            before, self._shown = self._shown, max(self._shown, frame["version"])
            if p is not None and frame["version"] > p.version and p.retry_at is None:
                self.pending = None  # the table moved on: the move was applied or refused
            if kind == "state" and before and frame["version"] > before + 1:
                await c.send({"type": "snapshot"})  # frames were lost on the way
        elif kind == "ack":
            if p is not None and frame.get("id") == p.id:
                self.answers.append(("ack", time.monotonic() - p.sent_at))
                self.pending = None
            if frame.get("id") in self._sent:
                self.moves += 1
            if isinstance(frame.get("version"), int):
                self._acked = max(self._acked, frame["version"])
            if isinstance(frame.get("version"), int) and frame["version"] > shown + 1:
                await c.send({"type": "snapshot"})
        elif kind == "error":
            code = frame.get("code")
            if p is not None and frame.get("id") == p.id:
                self.answers.append((code, time.monotonic() - p.sent_at))
                self.refusals[code] += 1
                if code not in REFUSALS_ALLOWED:
                    self.unexpected.append(frame)
                if code == "unavailable" and p.tries < len(self.RETRY):
                    p.retry_at = time.monotonic() + self.RETRY[p.tries]
                    p.tries += 1
                else:  # stale_version and duplicate come with a snapshot
                    self.pending = None
                    if code == "unavailable":
                        await c.send({"type": "snapshot"})
            elif frame.get("id") is not None:  # a late answer to a move given up on
                self.refusals[code] += 1
                if code not in REFUSALS_ALLOWED:
                    self.unexpected.append(frame)
        elif kind == "pong":
            if isinstance(frame.get("version"), int) and frame["version"] > shown:
                await c.send({"type": "snapshot"})

    def frames_by_seat(self) -> dict[TableClient, int]:
        return {c: self.seat for c in self.connections}


@dataclass
class Notifier:
    """A person's notification socket (``/ws/notify/``), open the whole game as a page's
    would be: pings on the documented heartbeat, reconnects (to the next server) when it
    closes; keeps every close code."""

    name: str
    http: Http
    servers: list[DaphneServer]
    closed: bool = False
    codes: list = field(default_factory=list)
    pongs: int = 0

    async def run(self) -> None:
        n = 0
        while not self.closed:
            srv = self.servers[n % len(self.servers)]
            n += 1
            try:
                ws = await ws_connect(f"{srv.ws_base}/ws/notify/", origin=srv.base,
                                      additional_headers=self.http.ws_headers(),
                                      open_timeout=5)
            except (OSError, InvalidHandshake, TimeoutError):
                await asyncio.sleep(1.0)
                continue
            try:
                while not self.closed:
                    await ws.send(json.dumps({"type": "ping"}))
                    deadline = time.monotonic() + 2.0
                    while time.monotonic() < deadline and not self.closed:
                        try:
                            frame = json.loads(await asyncio.wait_for(ws.recv(), 0.5))
                        except TimeoutError:
                            continue
                        self.pongs += frame.get("type") == "pong"
            except ConnectionClosed:
                pass
            finally:
                if self.closed:
                    await ws.close()
                else:
                    self.codes.append(ws.close_code)
                    await asyncio.sleep(0.5)


class Crowd:
    """The players' event loop, in a thread of its own, so the test drives the faults and
    reads the database in its own thread meanwhile."""

    def __init__(self, players: list[Player], notifiers: list[Notifier] = ()):
        self.players = players
        self.notifiers = list(notifiers)
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.tasks = []
        self.stopped = False

    def start(self) -> None:
        self.thread.start()
        for p in self.players:
            self.tasks.append(asyncio.run_coroutine_threadsafe(p.run(), self.loop))
        self.notifier_tasks = [asyncio.run_coroutine_threadsafe(n.run(), self.loop)
                               for n in self.notifiers]

    def stop(self) -> None:
        if self.stopped:
            return
        self.stopped = True
        for p in [*self.players, *self.notifiers]:
            p.closed = True
        for t in [*self.tasks, *self.notifier_tasks]:
            try:
                t.result(timeout=15)
            except Exception as exc:  # noqa: BLE001 - reported, then the checks decide
                print(f"player task ended with {exc!r}")
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)
        self.loop.close()

    def failures(self) -> list[str]:
        return [f"{p.name}: {t.exception()!r}" for p, t in zip(self.players, self.tasks,
                                                                 strict=True)
                if t.done() and t.exception() is not None]
