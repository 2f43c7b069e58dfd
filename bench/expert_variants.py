"""Expert variants as import-path bots, for whole-game runs of a screened option (issue #26):

    PYTHONPATH=bench .venv/bin/python -m games.bots.match --mode classic \\
        --a expert_variants:NoDangerExpert --b hard --games 400 --seed 2641 --jobs 1

``bench/bots_variants.py`` screens the same options on single hands (``sim_danger=0``).
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
