"""Single and double elimination brackets: pure, no Django.

:func:`single_elimination` / :func:`double_elimination` describe the bracket as a list of
:class:`MatchSpec` whose sides come from a seed, or from the winner or loser of an earlier
match. :func:`resolve` plays the stored results through it and says which matches are ready,
which are byes (one side absent: the other goes through), which are done, and who won the
event. The bracket has the next power of two slots; the missing seeds are the bottom ones, so
the byes go to the top seeds, all in the first round.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .base import PairingError


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

    ``state``: ``waiting`` (a side is not known yet: ``a`` or ``b`` is the one already
    known, if any), ``ready`` (both players known, to be
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


def resolve(specs: Sequence[MatchSpec], seeds: Sequence[int],
            results: Mapping[str, int]) -> dict[str, Resolved]:
    """Every match of the bracket given the seeded players and the ``results`` so far
    (match key to winner). Raises :class:`PairingError` for a result of a match that is not
    ready or a winner who is not in it."""
    out: dict[str, Resolved] = {}

    def side(src: Source) -> tuple[bool, int | None]:
        """``(known, player)``: not known while the match it comes from is undecided."""
        if src.kind == "seed":
            i = int(src.ref)
            return True, seeds[i] if i < len(seeds) else None
        m = out[str(src.ref)]
        if not m.decided:
            return False, None
        return True, m.winner if src.kind == "winner" else m.loser

    for spec in specs:
        (known_a, a), (known_b, b) = side(spec.a), side(spec.b)
        m = Resolved(spec)
        out[spec.key] = m
        if not (known_a and known_b):
            if spec.key in results:
                raise PairingError(f"Match {spec.key} is not ready.")
            m.a, m.b = a, b  # a side already known shows while the other is decided
            continue
        m.a, m.b = a, b
        if spec.reset and out[str(spec.a.ref)].winner == out[str(spec.a.ref)].a:
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


def knocked_out(specs: Sequence[MatchSpec],
                resolved: Mapping[str, Resolved]) -> dict[int, int]:
    """The players knocked out so far, each with the stage it happened at (their place may
    wait for the rest of that stage)."""
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
    return out_at


def elimination_places(specs: Sequence[MatchSpec],
                       resolved: Mapping[str, Resolved]) -> dict[int, int]:
    """Places of the players knocked out so far (and the champion's 1). Players knocked out
    at the same stage share a place: one more than the number of players who went further.
    A stage gets its places once all its matches are decided (until then its losers have
    none), so a place never changes once given."""
    double = any(s.bracket in ("L", "F") for s in specs)
    out_at = knocked_out(specs, resolved)
    players = {p for spec in specs if spec.a.kind == "seed"
               for p in (resolved[spec.key].a, resolved[spec.key].b) if p is not None}
    complete: dict[int, bool] = {}
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

