"""Maximum-weight matching in blocks of the standings (networkx's blossom algorithm).

Big fields are matched in blocks of :data:`BLOCK` consecutive players (each block exactly)
so a big round stays fast (``bench/tournaments.py``); a block whose best matching is not
good enough (``strict``) is merged with the next one. Swiss and arena pair through here.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import networkx as nx

BLOCK = 32
FULL_LIMIT = 300
BYE = -1  # the matching's stand-in for "no opponent"

Pairs = list[tuple[int, int]]
Weight = Callable[[int, int], int]
Allowed = Callable[[int, int], bool]


def match_blocks(order: Sequence[int], weight: Weight, allowed: Allowed, *, bye: bool,
                 strict: Callable[[Pairs], bool]) -> Pairs:
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
        got = match_all(block, weight, allowed, with_bye)
        if end < n and (len(got) * 2 < len(block) or not strict(got)):
            size += BLOCK
            continue
        pairs.extend(got)
        start, size = end, BLOCK
    return pairs


def match_all(players: list[int], weight: Weight, allowed: Allowed, with_bye: bool) -> Pairs:
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

