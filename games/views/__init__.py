"""Pages and JSON endpoints of the games app, thin over services and selectors, one module
per concern: ``tables`` (lobby, rooms, tables), ``archive`` (finished games, records) and
``analysis`` (post-game analysis) and ``imports`` (record files imported and kept)."""
from .analysis import (
    game_analysis_json,
    game_analysis_request,
)
from .archive import (
    ARCHIVE_PAGE,
    BOT_LEVEL_BY_KEY,
    game,
    game_record_json,
    game_record_txt,
    my_games,
    player_games,
)
from .imports import (
    game_import,
    imported,
    imported_analysis_json,
    imported_analysis_request,
    imported_delete,
    imported_record,
)
from .tables import (
    lobby,
    play_computer,
    room,
    room_json,
    rooms_json,
    table,
    table_bot,
    table_close,
    table_create,
    table_leave,
    table_quick,
    table_sit,
)

__all__ = [
    "lobby",
    "rooms_json",
    "room",
    "room_json",
    "table_create",
    "table_quick",
    "play_computer",
    "table",
    "table_sit",
    "table_leave",
    "table_close",
    "table_bot",
    "ARCHIVE_PAGE",
    "BOT_LEVEL_BY_KEY",
    "my_games",
    "player_games",
    "game",
    "game_import",
    "game_record_json",
    "game_record_txt",
    "game_analysis_request",
    "game_analysis_json",
    "imported",
    "imported_delete",
    "imported_record",
    "imported_analysis_request",
    "imported_analysis_json",
]
