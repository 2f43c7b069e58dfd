"""The scripted players of ``bench/ws_load.py``: one ``TableRun`` per table, one ``Conn`` per
socket (a seat's or a spectator's), checking every connection's versions for gaps and
duplicates, and the greedy ``choose`` that picks a move.
"""
from __future__ import annotations

import asyncio
import json
import os
import sys
import time

TRACE: list | None = [] if os.environ.get("WSLOAD_TRACE") else None
# Sockets opening at once: a browser crowd arrives spread out, and Daphne drops a handshake
# the application has not accepted within 5 s (each accept costs database work).
CONNECTING = asyncio.Semaphore(int(os.environ.get("WSLOAD_CONNECTING", "8")))

# --- The players -------------------------------------------------------------------------


class Stats:
    def __init__(self):
        self.rtt: list[float] = []
        self.fanout: list[float] = []
        self.actions = 0
        self.errors: dict[str, int] = {}
        self.closes = 0
        self.lost = 0
        self.duplicated = 0
        self.games = 0
        self.frames = 0
        self.connects: list[float] = []
        self.measure_from = float("inf")  # perf_counter() after the warm-up


class Conn:
    """One player's socket: tracks the newest state, checks versions for gaps/duplicates."""

    def __init__(self, ws, stats: Stats, table: TableRun, seat: int | None):
        self.ws, self.stats, self.table, self.seat = ws, stats, table, seat
        self.latest = None
        self.seen: set[int] = set()
        self.base: int | None = None
        self.acks: dict[str, asyncio.Future] = {}
        self.closed = False

    async def read(self):
        try:
            async for text in self.ws:
                now = time.perf_counter()
                f = json.loads(text)
                self.stats.frames += 1
                kind = f["type"]
                if kind == "snapshot":
                    if self.base is None:
                        self.base = f["version"]
                    self._show(f)
                elif kind == "state":
                    v = f["version"]
                    if v in self.seen:
                        self.stats.duplicated += 1
                    self.seen.add(v)
                    self.table.state_arrived(self.seat, v, now)
                    self._show(f)
                elif kind == "ack":
                    fut = self.acks.pop(f.get("id"), None)
                    if fut and not fut.done():
                        fut.set_result((f, now))
                elif kind == "error":
                    if os.environ.get("WSLOAD_DEBUG"):
                        print(self.seat, f, self.latest["version"], file=sys.stderr)
                    self.stats.errors[f["code"]] = self.stats.errors.get(f["code"], 0) + 1
                    fut = self.acks.pop(f.get("id"), None)
                    if fut and not fut.done():
                        fut.set_result((f, now))
        except Exception:
            pass
        finally:
            self.closed = True
            self.table.changed.set()

    def _show(self, f):
        if self.latest is None or f["version"] > self.latest["version"]:
            self.latest = f
            self.table.changed.set()

    def account(self, final: int) -> None:
        """Versions after the first snapshot that never arrived."""
        if self.base is not None:
            self.stats.lost += sum(1 for v in range(self.base + 1, final + 1)
                                   if v not in self.seen)


class TableRun:
    def __init__(self, info, ws_urls, stats: Stats, rate: float, until: float, rng,
                 spectators: int = 0):
        self.info, self.ws_urls, self.stats = info, ws_urls, stats
        self.spectators = spectators
        self.watchers: list[Conn] = []  # the spectators' sockets (not players)
        self.interval = 1.0 / rate
        self.until, self.rng = until, rng
        self.changed = asyncio.Event()
        self.pending: dict[int, float] = {}  # version -> send time, for the fan-out
        self.conns: list[Conn] = []

    def state_arrived(self, seat: int, version: int, now: float) -> None:
        sent = self.pending.get(version)
        if sent is not None and seat is not None and seat != self.mover.get(version):
            if sent >= self.stats.measure_from:
                self.stats.fanout.append(now - sent)
            self.pending.pop(version, None)

    async def connect(self, table_id: int):
        from websockets.asyncio.client import connect

        self.conns, self.readers, self.mover = [], [], {}
        for seat in (0, 1):
            url = self.ws_urls[(table_id + seat) % len(self.ws_urls)]
            cookie = f"sessionid={self.info['cookies'][seat]}"
            t0 = time.perf_counter()
            async with CONNECTING:
                ws = await connect(f"{url}/ws/table/{table_id}/",
                                   origin=url.replace("ws://", "http://"),
                                   additional_headers={"Cookie": cookie},
                                   open_timeout=30, max_size=2**22)
            self.stats.connects.append(time.perf_counter() - t0)
            conn = Conn(ws, self.stats, self, seat)
            self.conns.append(conn)
            self.readers.append(asyncio.create_task(conn.read()))
        self.watchers = []
        for n in range(self.spectators):
            url = self.ws_urls[(table_id + n) % len(self.ws_urls)]
            async with CONNECTING:
                ws = await connect(f"{url}/ws/table/{table_id}/",
                                   origin=url.replace("ws://", "http://"),
                                   open_timeout=30, max_size=2**22)
            watcher = Conn(ws, self.stats, self, None)
            self.watchers.append(watcher)
            self.readers.append(asyncio.create_task(watcher.read()))

    async def wait(self, pred, timeout=10.0):
        deadline = time.monotonic() + timeout
        while not pred():
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            self.changed.clear()
            try:
                await asyncio.wait_for(self.changed.wait(), min(left, 1.0))
            except TimeoutError:
                pass
        return True

    async def close(self):
        final = max((c.latest["version"] for c in self.conns if c.latest), default=0)
        every = self.conns + self.watchers
        # Frames still on their way when the run ends are late, not lost: give them time.
        await self.wait(lambda: all(c.closed or (c.latest and c.latest["version"] >= final)
                                    for c in every), timeout=5.0)
        for c in every:
            c.account(final)
            await c.ws.close()
        for r in self.readers:
            r.cancel()

    async def run(self):
        """Play until ``until`` (``connect`` has been awaited for every table first)."""
        table_id = self.info["id"]
        await asyncio.sleep(self.rng.random() * self.interval)  # spread the tables out
        next_at = time.monotonic()
        n = 0
        expect = 0  # the version the last ack announced (its state frames may lag the ack)
        while time.monotonic() < self.until:
            if any(c.closed for c in self.conns):
                self.stats.closes += 1
                return
            ok = await self.wait(lambda e=expect: all(c.latest and c.latest["version"] >= e
                                                      for c in self.conns))
            if not ok:  # a lost frame: ask for snapshots, as the protocol says
                for c in self.conns:
                    await c.ws.send(json.dumps({"type": "snapshot"}))
                continue
            latest = self.conns[0].latest
            if latest["table"]["status"] != "playing":
                table_id = await self.rematch(table_id)
                if table_id is None:
                    return
                expect = 0
                continue
            seat = next((c.seat for c in self.conns if c.latest["view"]["legal_actions"]), None)
            if seat is None:
                await asyncio.sleep(0.01)
                continue
            conn = self.conns[seat]
            view, version = conn.latest["view"], conn.latest["version"]
            delay = next_at - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            if time.monotonic() >= self.until:
                break
            next_at = max(next_at + self.interval, time.monotonic())
            n += 1
            mid = f"l{table_id}-{n}"
            fut = asyncio.get_running_loop().create_future()
            conn.acks[mid] = fut
            self.mover[version + 1] = seat
            sent = time.perf_counter()
            self.pending[version + 1] = sent
            await conn.ws.send(json.dumps({"type": "action", "action": choose(view, self.rng),
                                           "version": version, "id": mid}))
            try:
                frame, at = await asyncio.wait_for(fut, 10)
            except TimeoutError:
                self.stats.errors["no_ack"] = self.stats.errors.get("no_ack", 0) + 1
                continue
            if frame["type"] == "ack":
                if sent >= self.stats.measure_from:
                    self.stats.rtt.append(at - sent)
                    self.stats.actions += 1
                    if TRACE is not None:
                        TRACE.append((sent, at - sent, self.info["id"]))
                expect = frame["version"]
        await self.close()

    async def rematch(self, table_id):
        self.stats.games += 1
        for c in self.conns:
            await c.ws.send(json.dumps({"type": "rematch", "accept": True}))
        ok = await self.wait(lambda: all(
            c.latest["table"]["rematch"]["table_id"] for c in self.conns))
        new_id = self.conns[0].latest["table"]["rematch"]["table_id"] if ok else None
        await self.close()
        if new_id is None:
            self.stats.errors["no_rematch"] = self.stats.errors.get("no_rematch", 0) + 1
            return None
        # Seats move one round in a rematch.
        self.info = {"id": new_id, "cookies": self.info["cookies"][::-1]}
        await self.connect(new_id)
        return new_id


def choose(view, rng) -> str:
    """Gin when possible, knock when possible, else a greedy draw and discard."""
    from games.engine import best_melds, deadwood

    legal, hand = view["legal_actions"], view["hand"]
    for a in legal:
        if a.startswith(("big_gin", "gin:", "knock:", "accept_layoffs")):
            return a
    if "pass" in legal:
        return "pass"
    if "draw:stock" in legal:
        return "draw:stock"
    discards = [a for a in legal if a.startswith("discard:")]
    if discards:
        # The highest unmelded card (one meld search: the client shares the machine with the
        # servers it measures, so it should cost little); the exact best when all are melded.
        loose = best_melds(hand).deadwood_cards
        allowed = {a[8:] for a in discards}
        throw = [c for c in loose if c.text in allowed]
        if throw:
            return "discard:" + max(throw, key=lambda c: (c.value, c.rank)).text
        return min(discards, key=lambda a: deadwood([c for c in hand if c != a[8:]]))
    return rng.choice(legal)
