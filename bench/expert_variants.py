"""Expert variants as import-path bots, for whole-game runs of a screened option (issue #26):

    PYTHONPATH=bench .venv/bin/python -m games.bots.match --mode classic \\
        --a expert_variants:NoDangerExpert --b hard --games 400 --seed 2641 --jobs 1

``bench/bots_variants.py`` screens the same options on single hands (``sim_danger=0``).
``NoDangerExpert`` is what the runs of docs/bots.md ("Issue #26, session of 2026-12-02
afternoon") played, and the Expert's default since; ``PreviousExpert`` is the Expert before
it (playouts with ``sim_danger=4``), for paired comparisons on the same deals.
"""

from __future__ import annotations

import random
from typing import Any

from games.bots.cardmath import mask_from
from games.bots.expert import ExpertBot
from games.bots.knowledge import Knowledge


class NoDangerExpert(ExpertBot):
    """The Expert whose playouts throw by deadwood alone (``sim_danger=0``): no player in
    them avoids the cards that meld with the other's hidden hand."""

    name = "expert-sim-danger-0"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("sim_danger", 0.0)
        super().__init__(*args, **kwargs)


class PreviousExpert(ExpertBot):
    """The Expert before issue #26's change: playout throws avoid what melds with the other
    hand (``sim_danger=4``), which the playouts see whole."""

    name = "expert-sim-danger-4"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("sim_danger", 4.0)
        super().__init__(*args, **kwargs)


class OracleExpert(ExpertBot):
    """A diagnostic, never a player: the Expert searching on what it cannot know, to bound
    what a better sampling model could gain (docs/bots.md, issue #26).

    ``oracle=1``: every sample holds the opponent's real hand (the stock, the unseen rest,
    shuffled as usual); ``oracle=2``: the real hand and the stock's real order; 0: the
    Expert. The bench harness hands it the game state before each decision
    (``bots_hands.play_hand`` calls ``see_state``); its own knock rule samples the same way.

        PYTHONPATH=bench .venv/bin/python bench/bots_variants.py \\
            --a expert_variants:OracleExpert --variant "" --variant oracle=1 --variant oracle=2
    """

    name = "expert-oracle"

    def __init__(self, *args: Any, oracle: int = 0, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.oracle = int(oracle)
        self._state: Any = None
        if self.oracle:
            self.sampler = self._true_sample

    def see_state(self, state: Any) -> None:
        self._state = state

    def _true_sample(self, know: Knowledge, rng: random.Random) -> tuple[int, int]:
        if self._state is None:
            raise RuntimeError("OracleExpert needs a harness that calls see_state (bots_hands)")
        opp = mask_from(self._state.hands[1 - know.seat])
        return opp, know.unseen() & ~opp

    def gin_sample(self, know: Knowledge, rng: random.Random) -> tuple[int, list[int]]:
        if self.oracle < 2:
            return super().gin_sample(know, rng)
        return self._true_sample(know, rng)[0], [c.bit for c in self._state.stock]
