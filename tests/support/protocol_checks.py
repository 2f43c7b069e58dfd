"""The protocol tests' checks against the truth: the table's seed and stored actions replay,
through the engine, the true state at every version, against which each frame a client got
is scanned for leaks (another seat's hidden cards, the stock, the seed before the end) and
each view compared with what a fresh snapshot must be (see tests/support/protocol.py for the
client)."""
from __future__ import annotations

import json

from games import engine as E
from games import frames, states
from games.models import Table, TableAction
from tests.support.protocol import CARD, TableClient


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
    for _key, v in _entries({"x": value}):
        # (the three stock cards looked up first: a list that holds none is not read further)
        if isinstance(v, list) and len(v) >= 3 and all(isinstance(c, str) for c in v) and any(
            tuple(v[i:i + 3]) in runs for i in range(len(v) - 2)
        ) and all(CARD.fullmatch(c) for c in v):
            return True
    return False


def _since_reshuffle(events: list[dict]) -> list[dict]:
    """Events after the last reshuffle: cards discarded before it may be anywhere now."""
    marks = [i for i, e in enumerate(events) if e["kind"] == "reshuffle"]
    return events[marks[-1]:] if marks else events


def _cards(value) -> set[str]:
    return set(CARD.findall(json.dumps(value)))


def _walk(value, path=()):
    """Every dict entry in ``value`` at any depth, as (its path, its key, its value), in
    order (for the messages: ``_entries`` is the fast scan)."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield path + (k,), k, v
            yield from _walk(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _walk(v, path + (i,))


def _entries(value) -> list[tuple]:
    """The (key, value) of every dict entry in ``value`` at any depth: what ``_walk`` yields,
    in another order and without the paths. One loop over a stack instead of a generator per
    level (``_walk`` was most of the leak scan's time: 60 million calls for 200 games)."""
    found: list[tuple] = []
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            found += v.items()
            stack += [x for x in v.values() if isinstance(x, (dict, list))]
        elif isinstance(v, list):
            stack += [x for x in v if isinstance(x, (dict, list))]
    return found


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
    entries = _entries(frame)
    if any((key in ("stock", "deals", "face_down") and isinstance(value, list))
           or (key == "seed" and not ended and value is not None)
           for key, value in entries):  # then where, in order
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
    # Only this hand's parts: the last hand's public showdown (its melds, in the view and in
    # the events before this deal) holds cards that went back into the deck, and a run of
    # three of them lies in the new stock in the same order about once in a hundred games.
    this_hand = {"view": {k: v for k, v in view.items()
                          if k not in ("last_hand", "score_sheet", "result")},
                 "events": events[deals[-1]:] if deals else events}
    if stock_order_shown(this_hand, [c.text for c in state.stock]):
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
        closed = frame["table"]["status"] in ("finished", "abandoned")
        expected = None if state is None else json.loads(json.dumps(
            frames.view(state, seat, closed=closed)))
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
