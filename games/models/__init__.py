"""Live play and stored games.

``Room`` groups tables by mode. A ``Table`` holds one live game: its seats, settings, the
engine state as JSON (``GameState.to_dict()``) and a version number bumped by every change
that clients see. ``TableAction`` is the move list, ``ChatMessage`` the table chat. When a
game ends, the finish path (docs/architecture.md) stores a ``Game`` (with one ``GamePlayer``
per seat): the permanent record that statistics, ratings and tournaments build on.
"""
from .analysis import (
    ANALYSIS_ACTIVE,
    Analysis,
    AnalysisJob,
    AnalysisSeat,
    AnalysisStatus,
)
from .imports import ImportedRecord, OfflineCheck
from .records import (
    ClockOutage,
    Ending,
    Game,
    GamePlayer,
    Heartbeat,
)
from .tables import (
    ActionSource,
    ChatMessage,
    Mode,
    Room,
    Seat,
    Table,
    TableAction,
    TableStatus,
    grace_seconds,
)

__all__ = [
    "ClockOutage",
    "grace_seconds",
    "Mode",
    "Room",
    "TableStatus",
    "Table",
    "Seat",
    "ActionSource",
    "TableAction",
    "ChatMessage",
    "Ending",
    "Game",
    "GamePlayer",
    "Heartbeat",
    "Analysis",
    "AnalysisSeat",
    "AnalysisStatus",
    "ANALYSIS_ACTIVE",
    "AnalysisJob",
    "ImportedRecord",
    "OfflineCheck",
]
