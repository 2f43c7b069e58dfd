"""Reads of the games app (writes are in ``games.services``), one module per concern:
``rooms`` (the lobby's and the rooms' lists as each viewer may see them, who is online, a
player's own tables), ``tables`` (who may see a table, snapshots, chat, score sheets),
``archive`` (finished games: who may see one, archives, the export), ``analysis`` (post-game
analysis and accuracy), ``imports`` (records a person imported, for that person only) and
``players`` (who is in a public game with people now). Callers use the names exported here."""

from .analysis import (
    accuracy_by_month,
    accuracy_rows,
    analysis_busy,
    analysis_frame,
    analysis_state,
    analysis_subject,
    imported_analysis_state,
    stored_analysis,
)
from .archive import (
    ARCHIVE_DEFERRED,
    FORFEIT_VERB,
    and_list,
    archive_games,
    day_start,
    export_batch,
    forfeiters,
    game_for_viewer,
    game_private,
    game_summary,
    game_visible,
    user_has_games,
    went_on_without,
)
from .imports import imported_count, imported_for_owner, imported_records
from .players import playing_with_people
from .rooms import (
    room_online,
    room_payload,
    room_tables,
    rooms_overview,
    user_live_tables,
    with_ratings,
)
from .tables import (
    CHAT_HISTORY,
    invite_too_late,
    players_came,
    recent_chat,
    score_sheet,
    snapshot_of,
    table_access,
    table_snapshot,
    table_with_seats,
    tables_open_to,
)

__all__ = [
    "CHAT_HISTORY",
    "room_online",
    "rooms_overview",
    "with_ratings",
    "room_tables",
    "room_payload",
    "user_live_tables",
    "table_with_seats",
    "invite_too_late",
    "table_access",
    "tables_open_to",
    "recent_chat",
    "snapshot_of",
    "table_snapshot",
    "score_sheet",
    "players_came",
    "playing_with_people",
    "game_private",
    "game_visible",
    "day_start",
    "game_for_viewer",
    "user_has_games",
    "went_on_without",
    "ARCHIVE_DEFERRED",
    "archive_games",
    "export_batch",
    "FORFEIT_VERB",
    "and_list",
    "forfeiters",
    "game_summary",
    "analysis_frame",
    "stored_analysis",
    "analysis_state",
    "accuracy_rows",
    "accuracy_by_month",
    "analysis_busy",
    "analysis_subject",
    "imported_analysis_state",
    "imported_for_owner",
    "imported_count",
    "imported_records",
]
