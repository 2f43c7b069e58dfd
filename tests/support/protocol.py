"""The protocol client of tests/games/test_protocol_client.py, written from docs/protocol.md
(Tables) alone and moved here verbatim so the fault, scale-out and leak tests share it.

``Http``, ``TableClient`` and ``choose`` use only what the page documents: the login form, the
HTTP endpoints, the socket URL, the ``Origin`` header, the session cookie, the frames and their
fields. The checks of every frame against the truth replayed from the database are in
tests/support/protocol_checks.py (test_protocol_client.py's docstring says what they check).
"""
from __future__ import annotations

import asyncio
import http.cookiejar
import json
import random
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from django.contrib.auth.hashers import PBKDF2PasswordHasher
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed

from games import engine as E

PASSWORD = "a-Strong-pass-123"
FRAME_TIMEOUT = 15.0  # seconds to wait for any one expected frame
CARD = re.compile(r"(?<![A-Za-z0-9])([A2-9TJQK][CDHS])(?![A-Za-z0-9])")


# =============================================================================== the client
# Written from docs/protocol.md only.


class Http:
    """Form posts with the session cookie and the CSRF token; redirects are not followed
    (the page says every POST answers with a redirect to the page to show next)."""

    class _NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, req, fp, code, msg, headers, newurl):
            return None

    def __init__(self, base: str):
        self.base = base
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(self.jar), self._NoRedirect
        )

    def cookie(self, name: str) -> str | None:
        return next((c.value for c in self.jar if c.name == name), None)

    def request(self, method: str, path: str, data: dict | None = None):
        body = None
        headers = {"Accept": "text/html,application/json"}
        if data is not None:
            data = {**data, "csrfmiddlewaretoken": self.cookie("csrftoken") or ""}
            body = urllib.parse.urlencode(data).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        req = urllib.request.Request(self.base + path, data=body, method=method,
                                     headers=headers)
        try:
            with self.opener.open(req, timeout=FRAME_TIMEOUT) as resp:
                return resp.status, resp.headers, resp.read().decode()
        except urllib.error.HTTPError as exc:  # 3xx (not followed) and errors
            return exc.code, exc.headers, exc.read().decode(errors="replace")

    def get(self, path: str):
        return self.request("GET", path)

    def post(self, path: str, data: dict):
        if self.cookie("csrftoken") is None:
            self.get("/accounts/login/")  # any form page sets the CSRF cookie
        return self.request("POST", path, data)

    def login(self, username: str, password: str) -> None:
        status, _, _ = self.get("/accounts/login/")
        assert status == 200
        status, headers, body = self.post(
            "/accounts/login/", {"login": username, "password": password}
        )
        assert status == 302, (status, body[:500])
        assert self.cookie("sessionid"), "no session cookie after logging in"

    def ws_headers(self) -> dict[str, str]:
        cookies = "; ".join(f"{c.name}={c.value}" for c in self.jar)
        return {"Cookie": cookies} if cookies else {}


class TableClient:
    """One socket to ``/ws/table/<id>/``: every frame is logged; ``latest`` is the newest
    ``snapshot``/``state`` (frames at or below the shown version are stale and ignored)."""

    def __init__(self, name: str, ws):
        self.name = name
        self.ws = ws
        self.frames: list[dict[str, Any]] = []
        self.latest: dict[str, Any] | None = None
        self._changed = asyncio.Event()
        self._reader = asyncio.create_task(self._read())
        self.closed_code: int | None = None
        self.sent: list[float] = []

    @classmethod
    async def open(cls, name: str, ws_base: str, table_id: int, http: Http | None,
                   origin: str) -> TableClient:
        headers = http.ws_headers() if http is not None else {}
        ws = await ws_connect(f"{ws_base}/ws/table/{table_id}/", origin=origin,
                              additional_headers=headers, open_timeout=FRAME_TIMEOUT,
                              max_size=2**22)
        client = cls(name, ws)
        await client.wait_for(lambda f: f["type"] == "snapshot")
        return client

    async def _read(self):
        try:
            async for text in self.ws:
                frame = json.loads(text)
                self.frames.append(frame)
                if frame["type"] in ("snapshot", "state") and (
                    self.latest is None or frame["version"] > self.latest["version"]
                ):
                    self.latest = frame
                self._changed.set()
        except ConnectionClosed:  # dropped without a close frame (a killed server)
            pass
        finally:
            self.closed_code = self.ws.close_code
            self._changed.set()

    async def send(self, message: dict) -> None:
        """Send, keeping under the documented flood limit (100 messages in 20 s)."""
        now = time.monotonic()
        recent = [t for t in self.sent if t > now - 20]
        if len(recent) >= 95:
            await asyncio.sleep(recent[-95] + 20.05 - now)
        self.sent = recent[-100:] + [time.monotonic()]
        await self.ws.send(json.dumps(message))

    def can_spare(self, spare: int = 50) -> bool:
        """Room for an optional message: the server closes a socket that sends more than
        100 messages in 20 s."""
        return sum(1 for t in self.sent if t > time.monotonic() - 20) < spare

    async def wait_for(self, pred, since: int = 0, timeout: float = FRAME_TIMEOUT):
        """The first frame from index ``since`` that satisfies ``pred``."""
        deadline = time.monotonic() + timeout
        i = since
        while True:
            while i < len(self.frames):
                if pred(self.frames[i]):
                    return self.frames[i]
                i += 1
            if self._reader.done():
                raise AssertionError(f"{self.name}: socket closed ({self.closed_code})")
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"{self.name}: no such frame in {timeout}s; last: "
                                     f"{self.frames[-3:]}")
            self._changed.clear()
            try:
                await asyncio.wait_for(self._changed.wait(), left)
            except TimeoutError:
                pass

    async def wait_version(self, version: int):
        return await self.wait_for(
            lambda f: f["type"] in ("snapshot", "state") and f["version"] >= version
        )

    async def request(self, message: dict, reply: str = "ack") -> dict:
        """Send a message with an ``id``; return its ``ack`` (or ``error`` if asked)."""
        mark = len(self.frames)
        await self.send(message)
        frame = await self.wait_for(
            lambda f: f["type"] in ("ack", "error") and f.get("id") == message.get("id"),
            since=mark,
        )
        assert frame["type"] == reply, (self.name, message, frame)
        return frame

    async def fresh_snapshot(self) -> dict:
        mark = len(self.frames)
        await self.send({"type": "snapshot"})
        return await self.wait_for(lambda f: f["type"] == "snapshot", since=mark)

    async def close(self) -> None:
        await self.ws.close()
        try:
            await asyncio.wait_for(self._reader, 5)
        except (TimeoutError, Exception):
            self._reader.cancel()


def choose(view: dict[str, Any], rng: random.Random) -> str:
    """A move from ``view.legal_actions`` (a simple greedy player, so games end quickly)."""
    legal = view["legal_actions"]
    hand = view["hand"]

    def after_best_discard(cards):
        return min(E.deadwood([c for c in cards if c != d]) for d in cards)

    for prefix in ("big_gin", "gin:", "go_out:"):
        found = [a for a in legal if a.startswith(prefix)]
        if found:
            return found[0]
    knocks = [a for a in legal if a.startswith("knock:")]
    if knocks:
        return min(knocks, key=lambda a: E.deadwood([c for c in hand if c != a[6:]]))
    for prefix in ("meld:", "layoff:", "accept_layoffs"):
        found = [a for a in legal if a.startswith(prefix)]
        if found:
            return rng.choice(found)
    top = view["discard_pile"][-1] if view["discard_pile"] else None
    if "take_upcard" in legal or "draw:discard" in legal:
        take = "take_upcard" if "take_upcard" in legal else "draw:discard"
        other = "pass" if take == "take_upcard" else "draw:stock"
        if top and after_best_discard(hand + [top]) < E.deadwood(hand) - 2:
            return take
        if other in legal:
            return other
    discards = [a for a in legal if a.startswith("discard:")]
    if discards:
        return min(discards, key=lambda a: (E.deadwood([c for c in hand if c != a[8:]]),
                                            -E.Card(a[8:]).value))
    return rng.choice(legal)


def make_player(make_user, username: str):
    """A verified account whose password the server's default hasher can check."""
    user = make_user(username, password=PASSWORD)
    hasher = PBKDF2PasswordHasher()
    user.password = hasher.encode(PASSWORD, hasher.salt(), iterations=1000)
    user.save(update_fields=["password"])
    return user


async def resign_unless_over(client: TableClient) -> int:
    """Resign, and return the table's version after it; when the last move ended the game in
    the meantime (its frame still on the way), the refusal says so and carries the version."""
    try:
        return (await client.request({"type": "resign", "id": "bye"}))["version"]
    except AssertionError as exc:
        reply = exc.args[0][2] if exc.args and isinstance(exc.args[0], tuple) else {}
        if not isinstance(reply, dict) or reply.get("code") != "not_playing":
            raise
        return reply["version"]


async def play_game(players: dict[int, TableClient], watchers: list[TableClient],
                    version: int, rng: random.Random, checks: bool = True,
                    stop_after: int | None = None) -> int:
    """Drive the human seats until the game is over (or ``stop_after`` moves); return
    the last version. At every version one of the connections asks for a fresh snapshot,
    which must equal the ``state`` frame it got for that version."""
    everyone = list(players.values()) + watchers
    moves = 0
    while True:
        for c in everyone:
            await c.wait_version(version)
        if checks:  # one connection in turn (the replay in check_views covers them all)
            c = everyone[version % len(everyone)]
            frame = state_at(c, version)
            if c.can_spare() and frame is not None:
                snap = await c.fresh_snapshot()
                if snap["version"] == version:
                    assert_same_picture(frame, snap, c.name)
        status = {c.latest["table"]["status"] for c in everyone}
        newest = max(c.latest["version"] for c in everyone)
        if len(status) > 1 and newest > version:
            # A bot moved (and may have ended the game) while we looked: some connections
            # are already past ``version``. Let every connection catch up, then look again.
            version = newest
            continue
        if status == {"finished"}:
            return version
        assert status == {"playing"}, status
        actors = [(s, c) for s, c in players.items() if c.latest["view"]["legal_actions"]]
        if not actors:  # a bot is thinking
            version += 1
            continue
        assert len(actors) == 1, "two seats may move at once"
        seat, actor = actors[0]
        assert actor.latest["view"]["to_act"] == seat
        version = actor.latest["version"]
        action = choose(actor.latest["view"], rng)
        ack = await actor.request({"type": "action", "action": action, "version": version,
                                   "id": f"{actor.name}-{version}"})
        assert ack["version"] > version
        version = ack["version"]
        moves += 1
        if stop_after is not None and moves >= stop_after:
            return version


def state_at(client: TableClient, version: int) -> dict | None:
    return next((f for f in client.frames
                 if f["type"] in ("state", "snapshot") and f["version"] == version), None)


def _without_presence(seats):
    return [{k: v for k, v in s.items() if k not in ("connected", "gone")} for s in seats]


def assert_same_picture(frame: dict, snap: dict, who: str) -> None:
    assert snap["view"] == frame["view"], f"{who}: view differs from a fresh snapshot"
    assert snap["table"] == frame["table"], who
    assert _without_presence(snap["seats"]) == _without_presence(frame["seats"]), who
    assert snap["you"] == frame["you"], who


# =============================================================================== the checks
# These read the truth from the database.


def table_id_from(location: str) -> int:
    match = re.fullmatch(r"/tables/(\d+)/", urllib.parse.urlsplit(location).path)
    assert match, location
    return int(match.group(1))
