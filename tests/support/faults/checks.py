"""The fault suite's tables and checks: the games the players start, the wait for every seat
to move again, what must hold once they stop, and the /healthz probes."""
from __future__ import annotations

import json
import random
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from dataclasses import dataclass

from games import frames, states
from games.models import ActionSource, Seat, Table, TableAction, TableStatus
from tests.support.faults.players import Crowd, Notifier, Player
from tests.support.faults.site import Site
from tests.support.protocol import PASSWORD, Http, make_player
from tests.support.protocol import table_id_from as _table_id
from tests.support.protocol_checks import Truth, check_all

TURN_SECONDS = 15  # the shortest clock: a timeout charged by a fault shows up soonest
MOVING_WITHIN = 25.0  # bound on the wait for every seat to move again after a fault
HEALTHY_WITHIN = 5.0  # /healthz must answer 200 this soon after the fault ends
HEALTH_ANSWER = 1.0  # ... and answer every poll within this many seconds
REFUSED_WITHIN = 3.0  # a move refused for an infrastructure reason is answered this soon


# ============================================================================== the tables


@dataclass
class Game:
    table_id: int
    players: list[Player]
    seats: int = 2

    @property
    def human_seats(self) -> set[int]:
        return {p.seat for p in self.players}


def _login(make_user, name: str, base: str) -> Http:
    make_player(make_user, name)
    http = Http(base)
    http.login(name, PASSWORD)
    return http


def _games(site: Site, make_user, people: int = 2, computers: int = 2) -> list[Game]:
    """``people`` tables of two people (the first on Daphne 1, the second on Daphne 2) and
    ``computers`` tables of a person against the Easy computer (on Daphne 1, 2, 1...)."""
    one, two = site.daphnes
    games = []
    for n in range(people):
        a = _login(make_user, f"ann{n}", one.base)
        b = _login(make_user, f"ben{n}", two.base)
        status, headers, _ = a.post("/play/classic/new/", {
            "seats": "2", "seconds_per_turn": str(TURN_SECONDS), "target": "500"})
        assert status == 302, status
        table_id = _table_id(headers["Location"])
        status, _, _ = b.post(f"/tables/{table_id}/sit/", {})
        assert status == 302, status
        games.append(Game(table_id, [
            Player(f"ann{n}", a, table_id, 0, [one, two], random.Random(n)),
            Player(f"ben{n}", b, table_id, 1, [two, one], random.Random(100 + n)),
        ]))
    for n in range(computers):
        srv = site.daphnes[n % 2]
        c = _login(make_user, f"cal{n}", srv.base)
        status, headers, _ = c.post("/play/classic/new/", {
            "seats": "2", "seconds_per_turn": str(TURN_SECONDS), "target": "500", "bots": "1"})
        assert status == 302, status
        table_id = _table_id(headers["Location"])
        others = [s for s in site.daphnes if s is not srv]
        games.append(Game(table_id, [
            Player(f"cal{n}", c, table_id, 0, [srv, *others], random.Random(200 + n)),
        ]))
    for g in games:
        assert Table.objects.get(pk=g.table_id).status == "playing"
    return games


def table_versions(games: list[Game]) -> dict[int, int]:
    return dict(Table.objects.filter(pk__in=[g.table_id for g in games])
                .values_list("pk", "version"))


def wait_all_seats_move(games: list[Game], since: dict[int, int], what: str,
                        timeout: float = MOVING_WITHIN) -> dict[int, float]:
    """Until every seat of every table has moved after ``since`` (or the game ended);
    returns, per table, the seconds it took."""
    start = time.monotonic()
    took: dict[int, float] = {}
    while True:
        for g in games:
            if g.table_id in took:
                continue
            seats = set(TableAction.objects.filter(
                table_id=g.table_id, version__gt=since[g.table_id],
            ).values_list("seat", flat=True))
            status = Table.objects.filter(pk=g.table_id).values_list("status", flat=True)[0]
            if seats >= set(range(g.seats)) or status != "playing":
                took[g.table_id] = time.monotonic() - start
        if len(took) == len(games):
            print(f"{what}: every seat moved again within "
                  f"{max(took.values()):.1f} s (per table: "
                  + ", ".join(f"{t}: {s:.1f}" for t, s in sorted(took.items())) + ")")
            return took
        stuck = [g.table_id for g in games if g.table_id not in took]
        assert time.monotonic() - start < timeout, (
            f"{what}: tables {stuck} stuck for {timeout:.0f} s: "
            + "; ".join(_describe(t) for t in stuck)
        )
        time.sleep(0.25)


def _describe(table_id: int) -> str:
    t = Table.objects.get(pk=table_id)
    state = states.load(t.state)
    return (f"table {table_id} v{t.version} {t.status} to_act={state.to_act} "
            f"deadline={t.turn_deadline} deadline_seat={t.deadline_seat}")


def settle_and_check(crowd: Crowd, games: list[Game]) -> dict[str, int]:
    """Stop moving; when every table waits for a person who stopped, every player must reach
    the stored version (through its own recovery rules); then the stored truth is checked
    against every frame every connection received."""
    for g in games:
        for p in g.players:
            p.moving = False
    deadline = time.monotonic() + 30
    while True:  # a computer still to move plays; a move in flight settles
        quiet = True
        for g in games:
            t = Table.objects.get(pk=g.table_id)
            to_act = states.load(t.state).to_act
            if t.status == "playing" and (
                to_act not in g.human_seats or any(p.pending for p in g.players)
            ):
                quiet = False
        if quiet:
            break
        assert time.monotonic() < deadline, "the tables did not come to rest: " + "; ".join(
            _describe(g.table_id) for g in games)
        time.sleep(0.2)
    stored = table_versions(games)
    deadline = time.monotonic() + 30
    behind = []
    while time.monotonic() < deadline:
        behind = [(p.name, p.latest and p.latest["version"], stored[g.table_id])
                  for g in games for p in g.players
                  if p.latest is None or p.latest["version"] != stored[g.table_id]]
        if not behind:
            break
        time.sleep(0.2)
    crowd.stop()
    assert not crowd.failures(), crowd.failures()
    assert not behind, f"players not at the stored version (name, shown, stored): {behind}"
    # No socket of either kind closed with 1011 (an exception in the server).
    closes = Counter(c.closed_code for p in crowd.players for c in p.connections)
    closes.update(code for n in crowd.notifiers for code in n.codes)
    assert 1011 not in closes, f"sockets closed with 1011: {dict(closes)}"
    # Every move was answered, and a refusal for an infrastructure reason soon.
    slow = [(p.name, code, round(t, 2)) for p in crowd.players for code, t in p.answers
            if code == "unavailable" and t > REFUSED_WITHIN]
    assert not slow, f"unavailable answered later than {REFUSED_WITHIN} s: {slow}"
    unanswered = {p.name: p.unanswered for p in crowd.players if p.unanswered}
    assert not unanswered, f"moves with no answer within {Player.MOVE_TIMEOUT} s: {unanswered}"
    refused = [t for p in crowd.players for code, t in p.answers if code == "unavailable"]
    print(f"socket closes: {dict(closes)}; notification pongs: "
          f"{sum(n.pongs for n in crowd.notifiers)}; unavailable answers: {len(refused)}, "
          f"slowest {max(refused, default=0):.2f} s")

    totals = Counter()
    for g in games:
        t = Table.objects.get(pk=g.table_id)
        actions = list(TableAction.objects.filter(table=t).order_by("version"))
        versions = [a.version for a in actions]
        assert versions == list(range(versions[0], t.version + 1)), (
            f"table {t.pk}: stored versions are not contiguous: {versions}")
        ids = [a.client_id for a in actions if a.client_id]
        assert len(ids) == len(set(ids)), f"table {t.pk}: a move stored twice: {ids}"
        truth = Truth(t.pk)  # the replay of the stored moves is the stored state
        for p in g.players:
            closed = t.status in (TableStatus.FINISHED, TableStatus.ABANDONED)
            assert p.latest["view"] == json.loads(json.dumps(
                frames.view(truth.at(t.version), p.seat, closed=closed)))
            assert p.latest["table"]["status"] == t.status
            assert not p.unexpected, f"{p.name}: unexpected refusals {p.unexpected}"
            totals["connections"] += len(p.connections)
            totals["moves"] += p.moves
            totals["failed_connects"] += p.failed_connects
            totals["unavailable"] += p.refusals["unavailable"]
            totals["duplicate"] += p.refusals["duplicate"]
        counts = check_all({c: s for p in g.players for c, s in p.frames_by_seat().items()},
                           truth)
        totals["frames"] += counts["frames"]
        totals["views"] += counts["views"]
        totals["actions"] += len(actions)
    # No timeout charged to a connected player: none played, none counted.
    tables = [g.table_id for g in games]
    timeouts = list(TableAction.objects.filter(table_id__in=tables,
                                               source=ActionSource.TIMEOUT))
    assert not timeouts, f"timeouts charged: {timeouts}"
    charged = list(Seat.objects.filter(table_id__in=tables, user__isnull=False,
                                       timeouts__gt=0).values_list("table_id", "index"))
    assert not charged, f"seats charged with timeouts: {charged}"
    print("figures:", dict(totals))
    return dict(totals)


def start_play(site: Site, make_user) -> tuple[list[Game], Crowd]:
    games = _games(site, make_user)
    players = [p for g in games for p in g.players]
    # Each person also keeps the notification socket open, as every page does.
    notifiers = [Notifier(p.name, p.http, p.servers) for p in players]
    crowd = Crowd(players, notifiers)
    crowd.start()
    # Every seat of every table moves before the fault (the game is under way).
    wait_all_seats_move(games, table_versions(games), "warm-up", timeout=60)
    return games, crowd


def probe_health(site: Site) -> list[HealthProbe]:
    probes = [HealthProbe(srv.base) for srv in site.daphnes]
    for probe in probes:
        probe.start()
    return probes


def check_health(probes: list[HealthProbe], down_at: float, up_at: float,
                  during_code: int | None = 503, fault_end: float | None = None) -> None:
    """Every poll answered within ``HEALTH_ANSWER`` (``during_code`` from ``down_at`` until
    ``fault_end``: 503, or no connection at all while the Daphnes were down) and 200 within
    ``HEALTHY_WITHIN`` seconds of ``up_at``, when everything is back."""
    fault_end = up_at if fault_end is None else fault_end
    deadline = time.monotonic() + HEALTHY_WITHIN + 5
    while time.monotonic() < deadline and not all(p.first_ok_after(up_at) for p in probes):
        time.sleep(0.1)
    for probe in probes:
        probe.stop()
    for probe in probes:
        during = [(round(t0 - down_at, 1), code) for t0, t1, code in probe.samples
                  if t0 >= down_at + 0.5 and t1 <= fault_end]
        ok = probe.first_ok_after(up_at)
        answered = [t1 - t0 for t0, t1, code in probe.samples if code is not None]
        print(f"{probe.base}/healthz: {len(probe.samples)} polls, during the fault "
              f"{dict(Counter(code for _, code in during))}, slowest answer "
              f"{max(answered, default=0):.2f} s, 200 again "
              + (f"{ok - up_at:.2f} s after the fault" if ok is not None else "never"))
        assert during and all(code == during_code for _, code in during), during
        slow = [round(t, 2) for t in answered if t > HEALTH_ANSWER]
        assert not slow, f"{probe.base}/healthz answers slower than {HEALTH_ANSWER} s: {slow}"
        assert ok is not None and ok - up_at <= HEALTHY_WITHIN, (probe.base, ok, up_at)


# ============================================================================== /healthz


def health(base: str) -> tuple[int | None, dict | None]:
    try:
        with urllib.request.urlopen(base + "/healthz", timeout=5) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"null")
    except (OSError, ValueError):
        return None, None


class HealthProbe(threading.Thread):
    """Asks ``/healthz`` over and over; keeps (start, end, status) of every answer."""

    def __init__(self, base: str):
        super().__init__(daemon=True)
        self.base = base
        self.samples: list[tuple[float, float, int | None]] = []
        self._stop_event = threading.Event()

    def run(self) -> None:
        while not self._stop_event.is_set():
            t0 = time.monotonic()
            code, _ = health(self.base)
            self.samples.append((t0, time.monotonic(), code))
            self._stop_event.wait(0.2)

    def stop(self) -> None:
        self._stop_event.set()
        self.join(timeout=10)

    def first_ok_after(self, t: float) -> float | None:
        return next((t1 for t0, t1, code in list(self.samples) if t0 >= t and code == 200),
                    None)
