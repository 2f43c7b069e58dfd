"""Arena: pairing whoever is free now, the streak points and the standings (pure).

:func:`arena_pairings` pairs the players free right now by similar score, never with
themselves and never with their last opponent while someone else could be (see there);
:func:`arena_points` scores a player's results with the streak bonus; :func:`arena_standings`
orders by points, then performance, then games played.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from .base import Standing, shared_places
from .matching import match_all, match_blocks


@dataclass(frozen=True)
class ArenaPlayer:
    id: int
    score: int = 0
    rating: int = 1500
    last_opponent: int | None = None


def arena_pairings(free: Sequence[ArenaPlayer], *, rematch: bool = False,
                   ) -> list[tuple[int, int]]:
    """Pair the players who are free now, by similar score (then rating). Nobody meets
    themselves, and nobody meets their last opponent while another free player is left for
    them. Players that rule leaves out wait for the next wave, unless ``rematch`` (nobody
    else can come free: no other game is in play), when they meet again, for two players
    alone in an arena would otherwise wait until its end. An odd one out waits."""
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

    pairs = match_blocks([p.id for p in ranked], weight, allowed, bye=False,
                          strict=lambda pairs: True)
    if rematch:
        paired = {x for pair in pairs for x in pair}
        left = [p.id for p in ranked if p.id not in paired]
        pairs += match_all(left, weight, lambda a, b: True, False)
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
    places = shared_places(rows)
    return [Standing(p, *key, places[p]) for p, key in rows]
