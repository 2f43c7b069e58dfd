"""Round robin: everyone meets everyone once, round by round (``pairing.round_robin``)."""
from __future__ import annotations

from .. import pairing as P
from ..models import Format, Tournament
from . import store
from .rounds import RoundPlan, RoundsFormat


class RoundRobin(RoundsFormat):
    key = Format.ROBIN
    capacity = (2, 16)

    def total_rounds(self, t: Tournament) -> int:
        n = len(store.seeds(t))
        return n if n % 2 else n - 1

    def pairings(self, t: Tournament, gone: set[int]) -> RoundPlan:
        schedule = P.round_robin(store.seeds(t))
        r = t.round
        pairs = schedule[r - 1] if r <= len(schedule) else []
        byes = [a for a, b in pairs if b is None]
        return RoundPlan([(a, b) for a, b in pairs if b is not None], byes)
