"""Expert variants as import-path bots, for whole-game runs of a screened option (issue #26):

    PYTHONPATH=bench .venv/bin/python -m games.bots.match --mode classic \\
        --a expert_variants:NoDangerExpert --b hard --games 400 --seed 2641 --jobs 1

``bench/bots_variants.py`` screens the same options on single hands (``sim_danger=0``).
``NoDangerExpert`` is what the runs of docs/bots.md ("Issue #26, session of 2026-12-02
afternoon") played, and the Expert's default since; ``PreviousExpert`` is the Expert before
it (playouts with ``sim_danger=4``), for paired comparisons on the same deals.
"""

from __future__ import annotations

from typing import Any

from games.bots.expert import ExpertBot


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
