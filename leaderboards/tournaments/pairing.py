"""Brackets, pairings and standings of tournaments: pure Python, no Django.

Players are plain ids (ints). Everything here is a function of its arguments, so the
tournament services store results and call these again to learn what comes next.

* **Seeding**: :func:`seed_order` sorts by rating (highest first), ties by id.
* **Elimination** (single and double): :func:`single_elimination` / :func:`double_elimination`
  describe the bracket as a list of :class:`MatchSpec` whose sides come from a seed, or from
  the winner or loser of an earlier match. :func:`resolve` plays the stored results through
  it and says which matches are ready, which are byes (one side absent: the other goes
  through), which are done, and who won the event. The bracket has the next power of two
  slots; the missing seeds are the bottom ones, so the byes go to the top seeds, all in the
  first round.
* **Swiss**: :func:`swiss_pairings` pairs a round by maximum-weight matching (networkx's
  blossom algorithm): first no repeated pairing, then the smallest score differences, then
  neighbours in the standings. An odd field gives the bye to the lowest-placed player who
  has not had one.
* **Round robin**: :func:`round_robin` (the circle method; one bye a round when odd).
* **Arena**: :func:`arena_pairings` pairs the players free right now by similar score,
  never with themselves and never with their last opponent while someone else is free;
  :func:`arena_points` scores a player's results with the streak bonus.
* **Standings**: :func:`swiss_standings` (score, Buchholz, Sonneborn-Berger) and
  :func:`arena_standings` (points, performance).

Big fields are matched in blocks of the standings (:data:`BLOCK` players, each block exactly)
so a big round stays fast (``bench/tournaments.py``; docs/operations.md, "Measured
figures"); a block whose
best matching would repeat a pairing is merged with the next, and if a repeat is still left
the whole field is matched at once (up to :data:`FULL_LIMIT` players), so a repeat happens
only when it cannot be avoided.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import networkx as nx

BLOCK = 32
FULL_LIMIT = 300
BYE = -1  # the matching's stand-in for "no opponent"


class PairingError(ValueError):
    """A result that the bracket cannot take (unknown match, or a winner not in it)."""


def seed_order(ratings: Mapping[int, int]) -> list[int]:
    """Players by rating, highest first (ties: lower id first)."""
    return sorted(ratings, key=lambda p: (-ratings[p], p))


# ------------------------------------------------------------------------- elimination


@dataclass(frozen=True)
class Source:
    """Where one side of a match comes from: ``seed`` (0-based seed number), or the
    ``winner`` / ``loser`` of the match with key ``ref``."""

    kind: str
    ref: int | str


@dataclass(frozen=True)
class MatchSpec:
    key: str  # "W1-0": winners' bracket round 1 slot 0; "L2-1"; "GF1", "GF2"
    bracket: str  # "W", "L" or "F"
    round: int
    slot: int
    a: Source
    b: Source
    # The grand final's second match: played only if the losers' bracket champion (side b
    # of GF1) won GF1.
    reset: bool = False
    # Order of elimination: players knocked out in a later stage place higher.
    stage: int = 0


def bracket_size(n: int) -> int:
    return 1 << max(0, math.ceil(math.log2(n))) if n > 1 else 2


def elimination_rounds(n: int) -> int:
    """Rounds of a single-elimination bracket of ``n`` players: ceil(log2 n)."""
    return max(1, math.ceil(math.log2(n))) if n > 1 else 1


def seed_positions(size: int) -> list[int]:
    """0-based seeds in bracket order, so that seed 0 meets seed size-1, and the top two
    can only meet in the final (1v8, 4v5, 2v7, 3v6 for eight)."""
    order = [0]
    while len(order) < size:
        m = len(order) * 2
        order = [x for s in order for x in (s, m - 1 - s)]
    return order


def _winners_bracket(n: int, bracket: str = "W") -> list[MatchSpec]:
    size = bracket_size(n)
    rounds = int(math.log2(size))
    pos = seed_positions(size)
    specs = [
        MatchSpec(f"{bracket}1-{j}", bracket, 1, j, Source("seed", pos[2 * j]),
                  Source("seed", pos[2 * j + 1]), stage=1)
        for j in range(size // 2)
    ]
    for r in range(2, rounds + 1):
        for j in range(size >> r):
            specs.append(MatchSpec(
                f"{bracket}{r}-{j}", bracket, r, j,
                Source("winner", f"{bracket}{r - 1}-{2 * j}"),
                Source("winner", f"{bracket}{r - 1}-{2 * j + 1}"), stage=r,
            ))
    return specs


def single_elimination(n: int) -> list[MatchSpec]:
    """The bracket of ``n`` >= 2 players: ceil(log2 n) rounds, byes to the top seeds."""
    if n < 2:
        raise PairingError("An elimination bracket needs two players.")
    return _winners_bracket(n)


def double_elimination(n: int) -> list[MatchSpec]:
    """Winners' bracket, losers' bracket (losers of winners' round r drop in against the
    survivors, in reverse order to put off rematches) and a grand final with a reset match
    if the losers' champion wins the first."""
    if n < 2:
        raise PairingError("An elimination bracket needs two players.")
    size = bracket_size(n)
    k = int(math.log2(size))
    winners = [
        MatchSpec(s.key, s.bracket, s.round, s.slot, s.a, s.b, stage=0)
        for s in _winners_bracket(n)
    ]
    losers: list[MatchSpec] = []
    champion = Source("loser", "W1-0")  # two players: the loser of the only match
    if k >= 2:
        for j in range(size // 4):
            losers.append(MatchSpec(f"L1-{j}", "L", 1, j, Source("loser", f"W1-{2 * j}"),
                                    Source("loser", f"W1-{2 * j + 1}"), stage=1))
        for r in range(2, k + 1):
            lr = 2 * r - 2
            count = size >> r
            for j in range(count):
                losers.append(MatchSpec(
                    f"L{lr}-{j}", "L", lr, j, Source("winner", f"L{lr - 1}-{j}"),
                    Source("loser", f"W{r}-{count - 1 - j}"), stage=lr,
                ))
            if r < k:
                for j in range(count // 2):
                    losers.append(MatchSpec(
                        f"L{lr + 1}-{j}", "L", lr + 1, j, Source("winner", f"L{lr}-{2 * j}"),
                        Source("winner", f"L{lr}-{2 * j + 1}"), stage=lr + 1,
                    ))
        champion = Source("winner", f"L{2 * k - 2}-0")
    last = max((s.stage for s in losers), default=0)
    final = [
        MatchSpec("GF1", "F", 1, 0, Source("winner", f"W{k}-0"), champion, stage=last + 1),
        MatchSpec("GF2", "F", 2, 0, Source("winner", "GF1"), Source("loser", "GF1"),
                  reset=True, stage=last + 2),
    ]
    return winners + losers + final


@dataclass
class Resolved:
    """A match of the bracket as the results so far make it.

    ``state``: ``waiting`` (a side is not known yet), ``ready`` (both players known, to be
    played), ``bye`` (one side absent: the other goes through unplayed), ``done`` (played),
    ``empty`` (both sides absent) or ``skipped`` (a grand-final reset that is not needed).
    """

    spec: MatchSpec
    a: int | None = None
    b: int | None = None
    state: str = "waiting"
    winner: int | None = None
    loser: int | None = None

    @property
    def decided(self) -> bool:
        return self.state in ("bye", "done", "empty", "skipped")


_ABSENT = object()


def resolve(specs: Sequence[MatchSpec], seeds: Sequence[int],
            results: Mapping[str, int]) -> dict[str, Resolved]:
    """Every match of the bracket given the seeded players and the ``results`` so far
    (match key to winner). Raises :class:`PairingError` for a result of a match that is not
    ready or a winner who is not in it."""
    out: dict[str, Resolved] = {}

    def side(src: Source):
        if src.kind == "seed":
            return seeds[src.ref] if src.ref < len(seeds) else None
        m = out[src.ref]
        if not m.decided:
            return _ABSENT
        return m.winner if src.kind == "winner" else m.loser

    for spec in specs:
        a, b = side(spec.a), side(spec.b)
        m = Resolved(spec)
        out[spec.key] = m
        if a is _ABSENT or b is _ABSENT:
            if spec.key in results:
                raise PairingError(f"Match {spec.key} is not ready.")
            continue
        m.a, m.b = a, b
        if spec.reset and out[spec.a.ref].winner == out[spec.a.ref].a:
            m.state, m.winner = "skipped", a
        elif a is None and b is None:
            m.state = "empty"
        elif a is None or b is None:
            m.state, m.winner = "bye", a if b is None else b
        elif spec.key in results:
            w = results[spec.key]
            if w not in (a, b):
                raise PairingError(f"{w} did not play match {spec.key}.")
            m.state, m.winner, m.loser = "done", w, b if w == a else a
        else:
            m.state = "ready"
        if m.state in ("skipped", "empty", "bye") and spec.key in results:
            raise PairingError(f"Match {spec.key} is not played.")
    unknown = set(results) - set(out)
    if unknown:
        raise PairingError(f"No match {sorted(unknown)[0]} in this bracket.")
    return out


def champion(specs: Sequence[MatchSpec], resolved: Mapping[str, Resolved]) -> int | None:
    """The winner of the event, once its last match is decided (else None)."""
    last = resolved[specs[-1].key]
    return last.winner if last.decided else None


def elimination_places(specs: Sequence[MatchSpec],
                       resolved: Mapping[str, Resolved]) -> dict[int, int]:
    """Places of the players knocked out so far (and the champion's 1). Players knocked out
    at the same stage share a place: one more than the number of players who went further.
    A stage gets its places once all its matches are decided (until then its losers have
    none), so a place never changes once given."""
    double = any(s.bracket in ("L", "F") for s in specs)
    out_at: dict[int, int] = {}
    for spec in specs:
        m = resolved[spec.key]
        if m.state != "done" or m.loser is None:
            continue
        if double and spec.bracket == "W":
            continue  # a second life in the losers' bracket
        if spec.key == "GF1" and m.winner != m.a:
            continue  # the winners' champion lost once: the reset decides
        out_at[m.loser] = spec.stage
    players = {p for spec in specs if spec.a.kind == "seed"
               for p in (resolved[spec.key].a, resolved[spec.key].b) if p is not None}
    complete = {}
    for spec in specs:
        if double and spec.bracket == "W":
            continue
        complete[spec.stage] = complete.get(spec.stage, True) and resolved[spec.key].decided
    places: dict[int, int] = {}
    winner = champion(specs, resolved)
    if winner is not None:
        places[winner] = 1
    for p, stage in out_at.items():
        if complete.get(stage):
            places[p] = 1 + len(players) - sum(1 for s in out_at.values() if s <= stage)
    return places


# ------------------------------------------------------------------------- matching


def _match_blocks(order: Sequence[int], weight, allowed, *, bye: bool, strict) -> list:
    """Pairs of ``order`` (players in standings order) by maximum-weight matching in blocks.

    ``weight(a, b)`` (b may be :data:`BYE`) is the gain of a pair; ``allowed(a, b)`` false
    leaves the edge out. ``strict(pairs)`` is true when a block's pairs are good enough to
    keep; otherwise the block is merged with the next one and matched again. Returns the
    pairs of the last attempt (a pair with :data:`BYE` is a bye)."""
    n = len(order)
    pairs: list[tuple[int, int]] = []
    start = 0
    size = BLOCK
    while start < n:
        end = min(n, start + size)
        if n - end < BLOCK // 2:
            end = n  # no tiny last block
        if end < n and (end - start) % 2:
            end -= 1  # even blocks; only the last one may be odd (and get the bye)
        block = list(order[start:end])
        with_bye = bye and end == n and len(block) % 2 == 1
        got = _match(block, weight, allowed, with_bye)
        if end < n and (len(got) * 2 < len(block) or not strict(got)):
            size += BLOCK
            continue
        pairs.extend(got)
        start, size = end, BLOCK
    return pairs


def _match(players: list[int], weight, allowed, with_bye: bool) -> list[tuple[int, int]]:
    g = nx.Graph()
    nodes = players + ([BYE] if with_bye else [])
    g.add_nodes_from(nodes)
    for i, a in enumerate(nodes):
        for b in nodes[i + 1:]:
            if allowed(a, b):
                g.add_edge(a, b, weight=weight(a, b))
    matching = nx.max_weight_matching(g, maxcardinality=True)
    index = {p: i for i, p in enumerate(nodes)}
    pairs = []
    for a, b in matching:
        if a == BYE or (b != BYE and index[a] > index[b]):
            a, b = b, a
        pairs.append((a, b))
    pairs.sort(key=lambda p: index[p[0]])
    return pairs


# ------------------------------------------------------------------------- Swiss


@dataclass(frozen=True)
class SwissPlayer:
    id: int
    score: float = 0.0
    rating: int = 1500
    opponents: frozenset[int] = field(default_factory=frozenset)
    had_bye: bool = False


def swiss_order(players: Iterable[SwissPlayer]) -> list[SwissPlayer]:
    return sorted(players, key=lambda p: (-p.score, -p.rating, p.id))


def swiss_pairings(players: Sequence[SwissPlayer]) -> tuple[list[tuple[int, int]], int | None]:
    """One round: ``(pairs, bye)``. Pairs are (higher placed, lower placed).

    The matching maximises, in this order: pairings that are not repeats (and a bye to a
    player who had none), then the smallest squared score differences, then closeness in
    the standings.
    """
    ranked = swiss_order(players)
    if len(ranked) < 2:
        return [], (ranked[0].id if ranked else None)
    by_id = {p.id: p for p in ranked}
    rank = {p.id: i for i, p in enumerate(ranked)}
    n = len(ranked)
    lowest = ranked[-1].score
    spread = max(1.0, ranked[0].score - lowest)
    # Quality deficits are below ``q_max``; ``big`` outweighs every deficit of a round.
    q_max = int(100 * spread * spread) + n * n + 2
    big = (n // 2 + 2) * q_max

    def deficit(a: int, b: int) -> int:
        if b == BYE:
            p = by_id[a]
            # The bye's place weighs more than all the pairs' standings gaps together.
            return int(100 * (p.score - lowest) ** 2) + (n - 1 - rank[a]) * n
        d = by_id[a].score - by_id[b].score
        return int(100 * d * d) + abs(rank[a] - rank[b])

    def repeat(a: int, b: int) -> bool:
        if a == BYE or b == BYE:
            return by_id[b if a == BYE else a].had_bye
        return b in by_id[a].opponents

    def weight(a: int, b: int) -> int:
        w = q_max - deficit(*((a, b) if b == BYE or a != BYE else (b, a)))
        return w if repeat(a, b) else w + big

    def no_repeats(pairs) -> bool:
        return not any(repeat(a, b) for a, b in pairs)

    order = [p.id for p in ranked]
    pairs = _match_blocks(order, weight, lambda a, b: True, bye=True, strict=no_repeats)
    if not no_repeats(pairs) and BLOCK < n <= FULL_LIMIT:
        pairs = _match(order, weight, lambda a, b: True, n % 2 == 1)
    bye = next((a for a, b in pairs if b == BYE), None)
    pairs = [(a, b) if rank[a] < rank[b] else (b, a) for a, b in pairs if b != BYE]
    pairs.sort(key=lambda p: rank[p[0]])
    return pairs, bye


@dataclass(frozen=True)
class Result:
    """One finished pairing of a points event: ``winner`` None for a drawn match."""

    a: int
    b: int | None  # None: a bye (a point to ``a``)
    winner: int | None


@dataclass(frozen=True)
class Standing:
    player: int
    score: float
    tiebreak1: float  # Buchholz (Swiss, round robin) / performance (arena)
    tiebreak2: float  # Sonneborn-Berger (Swiss, round robin) / games played (arena)
    place: int


def _places(rows: list[tuple[int, tuple]]) -> dict[int, int]:
    """Places from (player, key) rows sorted best first: equal keys share a place."""
    places: dict[int, int] = {}
    for i, (p, key) in enumerate(rows):
        places[p] = places[rows[i - 1][0]] if i and rows[i - 1][1] == key else i + 1
    return places


def swiss_standings(players: Iterable[int], results: Iterable[Result]) -> list[Standing]:
    """Score (1 a win, 1 a bye, half a draw), then Buchholz (the sum of the opponents'
    scores) and Sonneborn-Berger (the scores of the opponents beaten, half of those drawn).
    Byes count in the score only."""
    players = list(players)
    score = dict.fromkeys(players, 0.0)
    met: dict[int, list[tuple[int, float]]] = {p: [] for p in players}
    for r in results:
        if r.b is None:
            score[r.a] += 1
            continue
        for me, them in ((r.a, r.b), (r.b, r.a)):
            got = 1.0 if r.winner == me else 0.5 if r.winner is None else 0.0
            score[me] += got
            met[me].append((them, got))
    rows = []
    for p in players:
        buchholz = sum(score[o] for o, _ in met[p])
        sb = sum(score[o] * got for o, got in met[p])
        rows.append((p, (score[p], buchholz, sb)))
    rows.sort(key=lambda r: (tuple(-x for x in r[1]), r[0]))
    places = _places(rows)
    return [Standing(p, *key, places[p]) for p, key in rows]


def round_robin(players: Sequence[int]) -> list[list[tuple[int, int | None]]]:
    """All rounds (circle method): everyone meets everyone once; with an odd number, one
    ``(player, None)`` bye a round."""
    ring: list[int | None] = list(players)
    if len(ring) % 2:
        ring.append(None)
    n = len(ring)
    rounds = []
    for r in range(n - 1):
        pairs = []
        for i in range(n // 2):
            a, b = ring[i], ring[n - 1 - i]
            if a is None:
                a, b = b, a
            elif b is not None and (r + i) % 2:
                a, b = b, a  # alternate who is listed first
            pairs.append((a, b))
        rounds.append(pairs)
        ring = [ring[0], ring[-1], *ring[1:-1]]
    return rounds


# ------------------------------------------------------------------------- arena


@dataclass(frozen=True)
class ArenaPlayer:
    id: int
    score: int = 0
    rating: int = 1500
    last_opponent: int | None = None


def arena_pairings(free: Sequence[ArenaPlayer]) -> list[tuple[int, int]]:
    """Pair the players who are free now, by similar score (then rating). Nobody meets
    themselves, and nobody meets their last opponent while another player is free: with only
    those two free, they wait. An odd one out waits for the next wave."""
    ranked = sorted({p.id: p for p in free}.values(), key=lambda p: (-p.score, -p.rating, p.id))
    if len(ranked) < 2:
        return []
    by_id = {p.id: p for p in ranked}
    rank = {p.id: i for i, p in enumerate(ranked)}
    n = len(ranked)
    spread = max(1, ranked[0].score - ranked[-1].score)
    q_max = 100 * spread * spread + n + 2

    def allowed(a: int, b: int) -> bool:
        return by_id[a].last_opponent != b and by_id[b].last_opponent != a

    def weight(a: int, b: int) -> int:
        d = by_id[a].score - by_id[b].score
        return q_max - (100 * d * d + abs(rank[a] - rank[b]))

    pairs = _match_blocks([p.id for p in ranked], weight, allowed, bye=False,
                          strict=lambda pairs: True)
    return [(a, b) if rank[a] < rank[b] else (b, a) for a, b in pairs]


ARENA_WIN = 2
ARENA_STREAK_WIN = 4  # a win after two wins in a row counts double ("on fire")
ARENA_DRAW = 1


def arena_points(outcomes: Iterable[str]) -> tuple[int, bool]:
    """Points of one player's matches in order (``"win"``, ``"draw"``, ``"loss"``) and
    whether they are on a streak now (two or more wins in a row)."""
    points, streak = 0, 0
    for o in outcomes:
        if o == "win":
            points += ARENA_STREAK_WIN if streak >= 2 else ARENA_WIN
            streak += 1
        else:
            points += ARENA_DRAW if o == "draw" else 0
            streak = 0
    return points, streak >= 2


def arena_standings(players: Iterable[int], games: Mapping[int, Sequence[tuple[str, int]]],
                    ) -> list[Standing]:
    """Points, then performance (the mean over a player's games of the opponent's rating
    +500 for a win, -500 for a loss), then games played. ``games[p]`` is p's matches in
    order as ``(outcome, opponent_rating)``. The performance is the exact mean (pages round
    it for display), so 1746.48 ranks above 1746.2."""
    rows = []
    for p in players:
        played = list(games.get(p, ()))
        points, _ = arena_points(o for o, _ in played)
        perf = (
            sum(r + (500 if o == "win" else -500 if o == "loss" else 0)
                for o, r in played) / len(played)
            if played else 0.0
        )
        rows.append((p, (points, perf, len(played))))
    rows.sort(key=lambda r: (tuple(-x for x in r[1]), r[0]))
    places = _places(rows)
    return [Standing(p, *key, places[p]) for p, key in rows]
