"""Post-game analysis: the Expert values every legal option of every decision of a game from
the deciding seat's view, and judges the option played (docs/analysis.md).

>>> from games.engine import GameRecord, new_game, apply, legal_actions
>>> s = new_game("classic", seed=2)
>>> for _ in range(6):
...     s = apply(s, legal_actions(s)[0]).state
>>> a = analyse(GameRecord.from_state(s), seed=1)
>>> len(a.decisions) == decision_count(GameRecord.from_state(s)) == 6
True
>>> GameAnalysis.from_json(a.to_json()) == a
True
"""

from .analyser import analyse, decision_count, judge_position
from .report import (
    ANALYSER_VERSION,
    JUDGEMENTS,
    Decision,
    GameAnalysis,
    Option,
    SeatSummary,
)

__all__ = [
    "ANALYSER_VERSION",
    "JUDGEMENTS",
    "Decision",
    "GameAnalysis",
    "Option",
    "SeatSummary",
    "analyse",
    "decision_count",
    "judge_position",
]
