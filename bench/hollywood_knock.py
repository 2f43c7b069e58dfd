"""Hard as it was before its Hollywood knock rule: knocks judged by hand points, as in Classic.

For the comparison in docs/bots.md ("Hard's Hollywood knock rule"):

    PYTHONPATH=bench .venv/bin/python -m games.bots.match --mode hollywood --a hard \\
        --b hollywood_knock:PointsKnockHard --games 2000 --seed 1302
"""

from __future__ import annotations

from games.bots.levels import HardBot


class PointsKnockHard(HardBot):
    """Hard without ``Knowledge.hand_value``: its knock rule counts plain hand points."""

    name = "hard-points-knock"

    def choose_gin(self, view, know, legal, kinds):
        know.hand_value = None
        return super().choose_gin(view, know, legal, kinds)
