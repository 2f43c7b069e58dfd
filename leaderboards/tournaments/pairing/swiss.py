"""Swiss: pairings by maximum-weight matching and the standings with tie-breaks (pure).

:func:`swiss_pairings` pairs a round: first no two players who have met, then the bye to
a player who has not had one, then the smallest score differences, then neighbours in the
standings. An odd field gives the bye to the lowest-placed player who has not had one; if
the blocks of the standings still leave a repeat, the whole field is matched at once (up to
:data:`FULL_LIMIT` players), so two players meet again only when it cannot be avoided (a
Swiss then ends instead: ``formats.swiss``). :func:`swiss_standings`: score, Buchholz,
Sonneborn-Berger (round robins are scored the same way).
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from .base import Result, Standing, shared_places
from .matching import BLOCK, BYE, FULL_LIMIT, match_all, match_blocks


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

    The matching maximises, in this order: pairs of players who have not met, a bye to a
    player who had none (a second bye is better than a rematch), then the smallest squared
    score differences, then closeness in the standings.
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
        if a == BYE or b == BYE:  # a second bye gains less than a first, more than a rematch
            return w + (big if repeat(a, b) else 2 * big)
        return w if repeat(a, b) else w + 2 * big

    def no_repeats(pairs: list[tuple[int, int]]) -> bool:
        return not any(repeat(a, b) for a, b in pairs)

    order = [p.id for p in ranked]
    pairs = match_blocks(order, weight, lambda a, b: True, bye=True, strict=no_repeats)
    if not no_repeats(pairs) and BLOCK < n <= FULL_LIMIT:
        pairs = match_all(order, weight, lambda a, b: True, n % 2 == 1)
    bye = next((a for a, b in pairs if b == BYE), None)
    pairs = [(a, b) if rank[a] < rank[b] else (b, a) for a, b in pairs if b != BYE]
    pairs.sort(key=lambda p: rank[p[0]])
    return pairs, bye


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
    places = shared_places(rows)
    return [Standing(p, *key, places[p]) for p, key in rows]

