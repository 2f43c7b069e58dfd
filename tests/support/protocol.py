"""The protocol client of tests/games/test_protocol_client.py, written from docs/protocol.md
(Tables) alone, and its checks against the truth (moved here verbatim so the fault, scale-out
and leak tests share it).

The client part (``Http``, ``TableClient``, ``choose``) uses only what the page documents:
the login form, the HTTP endpoints, the socket URL, the ``Origin`` header, the session
cookie, the frames and their fields. The checking part reads the database afterwards: the
table's seed and stored actions replay, through the engine, the true state at every
version, against which each frame is scanned for leaks (another seat's hidden cards, the
stock, the seed before the end) and each view compared with what a fresh snapshot must be.
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
from games import frames, states
from games.models import Table, TableAction

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


class Truth:
    """The true engine state at every version, replayed from the stored seed and moves,
    and checked against the stored state."""

    def __init__(self, table_id: int):
        table = Table.objects.get(pk=table_id)
        self.table = table
        actions = list(TableAction.objects.filter(table=table).order_by("version"))
        assert actions, "no stored moves"
        state = states.new_state(table.mode, table.seed, table.seat_count, table.target)
        self.start_version = actions[0].version - 1
        self.states: dict[int, E.GameState] = {self.start_version: state}
        for a in actions:
            state, _ = E.apply(state, a.action, a.seat)
            self.states[a.version] = state
        self.final_version = table.version
        assert state.to_dict(compact=True) == table.state, "the stored state is not the replay"

    def at(self, version: int) -> E.GameState | None:
        if version < self.start_version:
            return None
        return self.states[max(v for v in self.states if v <= version)]


def hidden_cards(state: E.GameState, seat: int | None) -> set[str]:
    """Cards ``seat`` (None: a spectator) may not know: the stock and the other hands,
    except cards publicly taken from the discard pile and a knocker's shown deadwood. After
    a rummy reshuffle the stock holds the old discard pile: its cards are known (as a set,
    not in order), so only the order is hidden (see ``stock_order_shown``)."""
    hidden = {c.text for c in state.stock} if not state.reshuffles else set()
    knocker = None
    if state.phase is E.Phase.LAYOFF and state.showdown:
        knocker = state.showdown.knocker
    for other, hand in enumerate(state.hands):
        if other == seat or other == knocker:
            continue
        hidden |= {c.text for c in hand} - {c.text for c in state.known[other]}
    return hidden


def stock_order_shown(value, stock: list[str]) -> bool:
    """Does a list of cards in ``value`` show three stock cards in their stock order?"""
    runs = {tuple(stock[i:i + 3]) for i in range(len(stock) - 2)}
    runs |= {r[::-1] for r in runs}
    for _path, _key, v in _walk({"x": value}):
        if isinstance(v, list) and len(v) >= 3 and all(
            isinstance(c, str) and CARD.fullmatch(c) for c in v
        ):
            if any(tuple(v[i:i + 3]) in runs for i in range(len(v) - 2)):
                return True
    return False


def _since_reshuffle(events: list[dict]) -> list[dict]:
    """Events after the last reshuffle: cards discarded before it may be anywhere now."""
    marks = [i for i, e in enumerate(events) if e["kind"] == "reshuffle"]
    return events[marks[-1]:] if marks else events


def _cards(value) -> set[str]:
    return set(CARD.findall(json.dumps(value)))


def _walk(value, path=()):
    if isinstance(value, dict):
        for k, v in value.items():
            yield path + (k,), k, v
            yield from _walk(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _walk(v, path + (i,))


def leaks(frame: dict, seat: int | None, truth: Truth, over_version: int) -> list[str]:
    """What ``frame``, sent to ``seat``, shows that it should not."""
    problems = []
    version = frame.get("version")
    # the seed is public once the game is over, however it ended (a resignation or a forfeit
    # finishes the table without the engine's game being over)
    ended = (version is not None and version >= over_version) or (
        (frame.get("table") or {}).get("status") == "finished")
    if not ended and str(truth.table.seed) in json.dumps(frame):
        problems.append("the seed before the end")
    for path, key, value in _walk(frame):
        if key in ("stock", "deals", "face_down") and isinstance(value, list):
            problems.append(f"a {key} list at {path}")
        if key == "seed" and not ended and value is not None:
            problems.append(f"a seed at {path}")
    if frame["type"] not in ("state", "snapshot") or version is None:
        return problems
    state = truth.at(version)
    if state is None:
        if frame["view"] is not None:
            problems.append("a view before the start")
        return problems
    for event in frame.get("events", []):
        allowed = event["visibility"] == "public" or (
            event["visibility"] == "seat" and seat is not None and event["seat"] == seat
        ) or (event["visibility"] == "spectators" and seat is None)
        if not allowed:
            problems.append(f"someone else's event {event}")
    if state.is_over:
        return problems  # the end reveals everything (the seed replays the deals)
    hidden = hidden_cards(state, seat)
    view = frame["view"]
    past = ("last_hand", "score_sheet", "result", "settings", "history")
    if state.reshuffles:
        past += ("upcard",)  # the first upcard may have been reshuffled into the stock
    current = {k: v for k, v in view.items() if k not in past}
    shown = _cards(current) | _cards(_since_reshuffle(view.get("history") or []))
    events = frame.get("events", [])
    deals = [i for i, e in enumerate(events) if e["kind"] == "deal"]
    # Events before this hand's deal belong to the previous deal (its showdown is public).
    shown |= _cards(_since_reshuffle(events[deals[-1]:] if deals else events))
    if stock_order_shown(frame, [c.text for c in state.stock]):
        problems.append("the stock's order")
    if not deals and frame.get("last"):
        shown |= _cards(frame["last"]["action"])
    if shown & hidden:
        where = [path for path, _k, v in _walk(frame)
                 if isinstance(v, str) and set(CARD.findall(v)) & hidden][:5]
        problems.append(f"hidden cards {sorted(shown & hidden)} at {where}")
    if seat is not None and view["hand"] != [c.text for c in sorted(state.hands[seat])]:
        problems.append("a hand that is not the seat's own")
    if seat is None and view["hand"] is not None:
        problems.append("a hand in the public view")
    return problems


def check_views(client: TableClient, seat: int | None, truth: Truth) -> int:
    """Every versioned frame's view is exactly the fresh view of the true state."""
    checked = 0
    for frame in client.frames:
        if frame["type"] not in ("state", "snapshot"):
            continue
        state = truth.at(frame["version"])
        expected = None if state is None else json.loads(json.dumps(frames.view(state, seat)))
        assert frame["view"] == expected, (
            f"{client.name}: the view at version {frame['version']} is not the true view"
        )
        checked += 1
    return checked


EVENT_KINDS = {"draw", "drew", "discard", "take_upcard", "pass", "meld", "layoff"}


def check_events_apply(client: TableClient, seat: int | None) -> int:
    """Zulip's desync guard: the previous view plus a frame's ``events`` gives the frame's
    view (hand, discard pile, card counts, stock count, melds on the table). Frames whose
    events go beyond simple moves (showdowns, new deals) are taken whole, as clients do."""
    applied = 0
    prev = None
    for frame in client.frames:
        if frame["type"] not in ("state", "snapshot"):
            continue
        view = frame["view"]
        if (prev is None or view is None or prev["view"] is None
                or frame["type"] != "state" or frame["version"] != prev["version"] + 1
                or not {e["kind"] for e in frame["events"]} <= EVENT_KINDS):
            prev = frame
            continue
        v = prev["view"]
        hand = list(v["hand"]) if v["hand"] is not None else None
        pile = list(v["discard_pile"])
        counts = list(v["card_counts"])
        stock = v["stock_count"]
        table = [set(m) for m in v["table"]]
        for e in frame["events"]:
            d = e["data"]
            if e["kind"] == "draw":
                counts[d["seat"]] += 1
                if d["source"] == "stock":
                    stock = d["stock"]
                else:
                    assert pile.pop() == d["card"]
                    if d["seat"] == seat:
                        hand.append(d["card"])
            elif e["kind"] == "drew":
                assert d["seat"] == seat
                hand.append(d["card"])
            elif e["kind"] == "take_upcard":
                assert pile.pop() == d["card"]
                counts[d["seat"]] += 1
                if d["seat"] == seat:
                    hand.append(d["card"])
            elif e["kind"] == "discard":
                pile.append(d["card"])
                counts[d["seat"]] -= 1
                if d["seat"] == seat:
                    hand.remove(d["card"])
            elif e["kind"] == "meld":
                table.append(set(d["cards"]))
                counts[d["seat"]] -= len(d["cards"])
                if d["seat"] == seat:
                    for c in d["cards"]:
                        hand.remove(c)
            elif e["kind"] == "layoff":
                table[d["meld"]].add(d["card"])
                counts[d["seat"]] -= 1
                if d["seat"] == seat:
                    hand.remove(d["card"])
        where = f"{client.name} at version {frame['version']}"
        assert pile == view["discard_pile"], where
        assert counts == view["card_counts"], where
        assert stock == view["stock_count"], where
        assert table == [set(m) for m in view["table"]], where
        if hand is not None:
            assert sorted(hand) == sorted(view["hand"]), where
        applied += 1
        prev = frame
    return applied


def check_versions(client: TableClient, final: int) -> None:
    """One ``state`` per version after the first snapshot: none lost, none twice."""
    first = next(f["version"] for f in client.frames if f["type"] == "snapshot")
    got = [f["version"] for f in client.frames if f["type"] == "state"]
    assert got == list(range(first + 1, final + 1)), f"{client.name}: versions {got}"


def check_all(clients: dict[TableClient, int | None], truth: Truth) -> dict[str, int]:
    over = min((v for v, s in truth.states.items() if s.is_over), default=10**9)
    counts = {"frames": 0, "views": 0, "applied": 0}
    for client, seat in clients.items():
        for frame in client.frames:
            found = leaks(frame, seat, truth, over)
            assert not found, f"{client.name} got {found} in {frame['type']} " \
                              f"v{frame.get('version')}"
            counts["frames"] += 1
        counts["views"] += check_views(client, seat, truth)
        counts["applied"] += check_events_apply(client, seat)
    return counts


def table_id_from(location: str) -> int:
    match = re.fullmatch(r"/tables/(\d+)/", urllib.parse.urlsplit(location).path)
    assert match, location
    return int(match.group(1))
