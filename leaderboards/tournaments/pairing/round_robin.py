"""Round robin: everyone meets everyone once (the circle method), pure."""
from __future__ import annotations

from collections.abc import Sequence


def round_robin(players: Sequence[int]) -> list[list[tuple[int, int | None]]]:
    """All rounds (circle method): everyone meets everyone once; with an odd number, one
    ``(player, None)`` bye a round."""
    ring: list[int | None] = list(players)
    if len(ring) % 2:
        ring.append(None)
    n = len(ring)
    rounds = []
    for r in range(n - 1):
        pairs: list[tuple[int, int | None]] = []
        for i in range(n // 2):
            a, b = ring[i], ring[n - 1 - i]
            if a is None:
                a, b = b, a
            elif b is not None and (r + i) % 2:
                a, b = b, a  # alternate who is listed first
            assert a is not None  # one None (the bye) in the ring at most
            pairs.append((a, b))
        rounds.append(pairs)
        ring = [ring[0], ring[-1], *ring[1:-1]]
    return rounds

