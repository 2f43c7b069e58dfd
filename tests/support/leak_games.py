"""The harness of the leak scan over whole games (tests/games/test_leak_games.py): the kinds
of game played, the frames captured as the server would send them, each scanned against the
true state at its version, and the tallies that show what the games went through."""
from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import dataclass, field

from games import broadcast, frames, states
from games import engine as E
from games.bots import get_bot
from games.timeouts import safe_action
from tests.support.protocol import CARD
from tests.support.protocol_checks import leaks

TRUE_VIEW = frames.view  # the engine's views, kept apart from what ``state_frames`` calls
NOT_OVER = 10**9
LEVELS = ("easy", "medium", "hard")


@dataclass(frozen=True)
class Plan:
    """One kind of game: mode, players, lowered targets (short games), how many games."""

    mode: str
    players: int
    targets: tuple[int, ...]
    games: int

    @property
    def key(self) -> str:
        return self.mode if self.mode != "rummy" else f"rummy-{self.players}"


PLANS = (
    Plan("classic", 2, (1, 1, 1, 10), 80),
    Plan("straight", 2, (1,), 16),
    Plan("oklahoma", 2, (1, 1, 10), 70),
    Plan("hollywood", 2, (10, 15), 6),
    Plan("rummy", 2, (1,), 14),
    Plan("rummy", 3, (1,), 10),
    Plan("rummy", 4, (1,), 8),
)


@dataclass
class Scan:
    """What the harness saw: problems (empty when nothing leaked) and the counts that prove
    the scan was not vacuous."""

    problems: list[str] = field(default_factory=list)
    games: Counter = field(default_factory=Counter)
    frames: Counter = field(default_factory=Counter)  # (mode key, "seat"/"spectator")
    recipients: Counter = field(default_factory=Counter)  # (mode key, seat or None)
    seen: Counter = field(default_factory=Counter)  # events, outcomes and paths exercised

    def fail(self, where: str, what) -> None:
        if len(self.problems) < 200:
            self.problems.append(f"{where}: {what}")


class GameTruth:
    """The minimal truth ``leaks`` reads: ``table.seed`` and the true state at a version."""

    def __init__(self, seed: int):
        self.table = type("TableStub", (), {"seed": seed})()
        self.states: dict[int, E.GameState] = {}

    def at(self, version: int) -> E.GameState | None:
        return self.states.get(version)


def recipient_of(key: str) -> int | None:
    return None if key == "spectators" else int(key)


def delivered(messages: list[tuple[str, dict]], table_id: int,
              recipients: list[int | None]) -> dict[int | None, dict]:
    """The state frame each connection (a seat, or ``None`` for a spectator) forwards from
    the captured sends: one message per group (``table.frame``), or one message to the
    table's group with every recipient's frame (``table.frames``: each connection forwards
    its own seat's frame; spectators the public one)."""
    out: dict[int | None, dict] = {}
    for group, message in messages:
        if message["type"] == "table.frames":
            assert group == f"table.{table_id}", group
            frames = message["frames"]
            assert {recipient_of(k) for k in frames} <= set(recipients), sorted(frames)
            for r in recipients:
                key = "spectators" if r is None else str(r)
                if key in frames:
                    out[r] = frames[key]
        else:
            assert message["type"] == "table.frame", message["type"]
            prefix = f"table.{table_id}."
            assert group.startswith(prefix), group
            rest = group[len(prefix):]
            r = None if rest == "spectators" else int(rest.removeprefix("seat."))
            assert r in recipients, group
            out[r] = message["frame"]
    return out


def paths_with(value, cards: set[str], path: tuple = ()) -> list[tuple]:
    """Where in ``value`` a string names one of ``cards``."""
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in paths_with(v, cards, (*path, k))]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in paths_with(v, cards, (*path, i))]
    if isinstance(value, str) and set(CARD.findall(value)) & cards:
        return [path]
    return []


def noisy_choice(state: E.GameState, legal: list[E.Action], rng: random.Random):
    """A seeded random move at the points that make rarer events (manual or no lay-offs,
    knocks that may be undercut, odd rummy melds and lay-offs), else None (the bot moves)."""
    phase = state.phase
    if phase is E.Phase.LAYOFF and rng.random() < 0.7:
        return rng.choice(legal)
    if phase is E.Phase.DISCARD:
        knocks = [a for a in legal if a.kind == E.ActionKind.KNOCK]
        if knocks and rng.random() < 0.5:
            return rng.choice(knocks)
    if phase is E.Phase.PLAY:
        placing = [a for a in legal if a.kind in (E.ActionKind.MELD, E.ActionKind.LAYOFF)]
        if placing and rng.random() < 0.3:
            return rng.choice(placing)
    return None


def stalling_choice(state: E.GameState, legal: list[E.Action], rng: random.Random):
    """Never take, meld, knock or go gin: the stock runs down (a drawn gin hand; rummy
    reshuffles the discard pile, then stalls)."""
    texts = {str(a) for a in legal}
    for text in ("pass", "draw:stock"):
        if text in texts:
            return next(a for a in legal if str(a) == text)
    discards = [a for a in legal if a.kind == E.ActionKind.DISCARD]
    return rng.choice(discards) if discards else None


def tally_deal(scan: Scan, plan: Plan, knock_limit: int | None, multiplier: int) -> None:
    scan.seen["hands dealt"] += 1
    if plan.mode == "oklahoma":
        if knock_limit == 0:
            scan.seen["oklahoma ace: gin only"] += 1
        if multiplier > 1:
            scan.seen["oklahoma spades double"] += 1


def tally(scan: Scan, state_before: E.GameState, text: str, events, plan: Plan) -> None:
    seen = scan.seen
    gin = plan.mode != "rummy"
    for e in events:
        seen[e.kind] += 1
        if e.kind == "layoff":
            seen["gin layoff" if gin else "rummy layoff"] += 1
        if e.kind == "hand_over":
            d = e.data
            seen[f"outcome {d['outcome']}"] += 1
            if d.get("going_rummy"):
                seen["going rummy"] += 1
            if plan.mode == "hollywood" and len(d.get("columns") or ()) > 1:
                seen["hollywood win in several columns"] += 1
        if e.kind == "deal":
            tally_deal(scan, plan, e.data["knock_limit"], e.data["multiplier"])
    if state_before.phase is E.Phase.LAYOFF and text.startswith("layoff:"):
        seen["gin manual layoff"] += 1
    if state_before.phase is E.Phase.LAYOFF and text == "done":
        seen["gin layoffs declined"] += 1


class Harness:
    """Plays games and scans every frame ``state_frames`` builds and ``send_state`` sends."""

    def __init__(self, monkeypatch, *, face_down: bool = False):
        self.sent: list[tuple[str, dict]] = []
        monkeypatch.setattr(broadcast, "_send_all", self.sent.extend)
        self.scan = Scan()
        self.face_down = face_down  # also look for the knocker's face-down card

    def check_face_down(self, who: str, frame: dict, r: int | None, state: E.GameState,
                        before: E.GameState | None) -> None:
        """During lay-offs the knock card lies face down (the engine's views show only
        ``face_down_count``): no one but the knocker may see it, unless it was known
        before (taken from the discard pile)."""
        if state.phase is not E.Phase.LAYOFF or not state.face_down:
            return
        knocker = state.showdown.knocker
        self.scan.seen["lay-off phase frames"] += 1
        if r == knocker:
            return
        known = {c.text for c in before.known[knocker]} if before is not None else set()
        secret = {c.text for c in state.face_down} - known
        shown = paths_with(frame, secret)
        if shown:
            self.scan.fail(who, f"the knocker's face-down card {sorted(secret)} at {shown}")

    def publish(self, *, plan: Plan, table_id: int, truth: GameTruth, version: int,
                state: E.GameState, events, last, humans: list[int], status: str,
                finish: dict | None = None) -> dict[int | None, dict]:
        """``state_frames`` and ``send_state`` as ``publish._publish`` calls them; scan what
        each connection gets."""
        table = {"id": table_id, "mode": plan.mode, "seat_count": plan.players,
                 "target": state.target, "status": status, "finish": finish}
        seats = [{"index": i, "kind": "user" if i in humans else "bot",
                  "name": f"player {i}" if i in humans else "Computer (Medium)",
                  "connected": True, "gone": False, "timeouts": 0}
                 for i in range(plan.players)]
        clock = None
        if status == "playing" and state.to_act in humans:
            clock = {"seat": state.to_act, "deadline": "2026-01-01T00:00:30Z",
                     "seconds_per_turn": 30}
        self.sent.clear()
        broadcast.send_state(table_id=table_id, version=version, frames=frames.state_frames(
            version=version, table=table, seats=seats, clock=clock,
            state=state, events=tuple(events), last=last, human_seats=humans,
        ))
        recipients: list[int | None] = [*humans, None]
        got = delivered(list(self.sent), table_id, recipients)
        where = f"{plan.key} seed {truth.table.seed} v{version}"
        if set(got) != set(recipients):
            self.scan.fail(where, f"frames for {sorted(got, key=str)}, not {recipients}")
        # The seed is public once the table is finished (the stored game shows it), also
        # after a resignation; cards still held then stay hidden (``leaks`` checks them
        # unless the engine's game is over).
        over = version if status == "finished" else NOT_OVER
        wire: dict[int | None, dict] = {}
        for r, sent in got.items():
            frame = json.loads(json.dumps(sent))  # what the socket carries
            wire[r] = frame
            who = f"{where} {'spectators' if r is None else f'seat {r}'}"
            self.scan.frames[plan.key, "spectator" if r is None else "seat"] += 1
            self.scan.recipients[plan.key, r] += 1
            if frame.get("type") != "state" or frame.get("version") != version:
                self.scan.fail(who, f"not this version's state frame: {frame.get('type')}")
                continue
            for problem in leaks(frame, r, truth, over):
                self.scan.fail(who, problem)
            # (a game ended before its rules ended it offers nobody a move)
            expected = TRUE_VIEW(state, r, closed=status in ("finished", "abandoned"))
            if sent["view"] != expected:
                diff = sorted(k for k in set(expected) | set(sent["view"])
                              if sent["view"].get(k) != expected.get(k))
                self.scan.fail(who, f"the view is not the true view (keys {diff})")
            if self.face_down:
                self.check_face_down(who, frame, r, state, truth.at(version - 1))
            if r is None and (frame["view"].get("hand") is not None
                              or frame["view"].get("legal_actions")):
                self.scan.fail(who, "a hand or moves in the spectators' view")
            if state.is_over:
                if frame["view"].get("seed") != truth.table.seed:
                    self.scan.fail(who, "the seed is not shown at the end")
                else:
                    self.scan.seen["seed shown at the end"] += 1
        return wire

    def play(self, plan: Plan, number: int, *, resign_after: int | None = None) -> None:
        """One whole seeded game of ``plan`` (or, with ``resign_after``, one that a player
        resigns after that many moves)."""
        scan = self.scan
        pick = random.Random(f"leak-games:{plan.key}:{number}")
        seed = pick.getrandbits(62)  # as the server draws table seeds
        target = pick.choice(plan.targets)
        table_id = 1000 + number
        levels = [pick.choice(LEVELS) for _ in range(plan.players)]
        bots = [get_bot(level, seed=seed ^ seat) for seat, level in enumerate(levels)]
        # Bots only, bots with seeded random lay-offs/knocks/melds, or a first hand in which
        # nobody takes, melds or knocks (drawn gin hands, rummy reshuffles and stalemates).
        stall = plan.mode != "hollywood" and number in (3, 30)
        noisy = not stall and pick.random() < 0.4
        timeouts = pick.random() < 0.5
        # A computer seat gets no frames: most two-player games are a person against the
        # computer, as on the site.
        humans = list(range(plan.players))
        if number % 3 or (plan.players > 2 and pick.random() < 0.5):
            humans.remove(pick.randrange(plan.players))
        rng = random.Random(seed ^ 0x5EED)

        truth = GameTruth(seed)
        state = states.new_state(plan.mode, seed, plan.players, target)
        tally_deal(scan, plan, state.knock_limit, state.multiplier)
        version = 1
        truth.states[version] = state
        wire = self.publish(plan=plan, table_id=table_id, truth=truth, version=version,
                            state=state, events=(), last=None, humans=humans,
                            status="playing")
        moves = 0
        while not state.is_over:
            if resign_after is not None and moves >= resign_after:
                loser = humans[0]
                version += 1
                truth.states[version] = state
                self.publish(plan=plan, table_id=table_id, truth=truth, version=version,
                             state=state, events=(), last=None, humans=humans,
                             status="finished",
                             finish={"ending": "resignation", "loser_seat": loser})
                scan.seen["resignation"] += 1
                return
            seat = state.to_act
            if timeouts and seat in humans and rng.random() < 0.05:
                # services.table_timeout: safe moves until the turn or the hand changes,
                # each stored with its own version, one frame for them all.
                hand, events, text = state.hand_number, [], ""
                for _ in range(30):
                    before, text = state, safe_action(state)
                    state, new_events = E.apply(state, text, seat)
                    tally(scan, before, text, new_events, plan)
                    events.extend(new_events)
                    version += 1
                    truth.states[version] = state
                    if state.is_over or state.to_act != seat or state.hand_number != hand:
                        break
                last = {"seat": seat, "action": text, "source": "timeout"}
                scan.seen["timeout frame"] += 1
            else:
                legal = E.legal_actions(state)
                # The bot sees what its seat was sent (computer seats: their own view).
                view = wire[seat]["view"] if seat in humans else TRUE_VIEW(state, seat)
                action = None
                if stall and state.hand_number == 1:
                    action = stalling_choice(state, legal, rng)
                elif noisy:
                    action = noisy_choice(state, legal, rng)
                if action is None:
                    action = bots[seat].choose(view, legal)
                text = str(action)
                before = state
                state, events = E.apply(state, text, seat)
                tally(scan, before, text, events, plan)
                version += 1
                truth.states[version] = state
                last = {"seat": seat, "action": text,
                        "source": "player" if seat in humans else "bot"}
            moves += 1
            wire = self.publish(
                plan=plan, table_id=table_id, truth=truth, version=version, state=state,
                events=events, last=last, humans=humans,
                status="finished" if state.is_over else "playing",
                finish={"ending": "normal"} if state.is_over else None,
            )
        scan.games[plan.key] += 1


def play_all(harness: Harness) -> Scan:
    for plan in PLANS:
        for number in range(plan.games):
            harness.play(plan, number)
        harness.play(plan, plan.games, resign_after=6)
    return harness.scan
