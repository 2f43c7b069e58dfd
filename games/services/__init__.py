"""Writes of live play: tables, seats, moves, clocks, chat and the one finishing path.

Every function is keyword-only and runs in one transaction with the table row locked
(``select_for_update``; SQLite serialises writers with ``transaction_mode=IMMEDIATE``). A change
that clients see bumps ``Table.version``; frames, Celery tasks and signals go out only after
commit. Nothing is cached in memory: the stored state is the truth, so a restarted server
carries on from the last stored action.

One module per concern: ``locking`` (the row lock, seats), ``clock`` (deadlines, a computer's
queued move, stopped clocks, time given back after an outage), ``publish`` (frames after the
commit; ``save_and_publish``, the last step of every write), ``tables``, ``moves`` (and
timeouts), ``endings`` (the finish path), ``closing`` (a player's Close, tables their people
left), ``rematch``, ``chat``, ``presence``, ``sweep``, ``offline`` (uploaded offline
games), ``analysis`` (post-game analysis: the request, the run; ``analysis_store``: the stored
result),
``imports`` (record files a person imported, kept for them), ``leaving`` (a closing
account: no game in play, out of its waiting tables).
Callers use the names below:
``from games import services; services.table_act(...)``.
"""
from .analysis import (
    analysis_queue,
    analysis_request,
    analysis_request_automatic,
    analysis_request_import,
    analysis_run,
    analysis_seed,
)
from .chat import chat_post
from .clock import clocks_watched, table_clock_resume, table_state_undelivered
from .closing import table_close, tables_close_left
from .endings import game_finish, table_claim, table_resign
from .hints import table_hint
from .imports import (
    import_delete,
    import_digest,
    import_keep,
    import_seed,
    imported_engine_record,
)
from .leaving import games_in_play, games_leave, tables_waiting_leave
from .moves import table_act, table_bot_move, table_timeout
from .offline import OfflineUpload, OfflineUploadError, offline_check_run, offline_game_store
from .presence import (
    TableOpen,
    room_presence_mark,
    seat_heartbeat,
    seat_presence,
    table_open,
    table_presence_publish,
    table_watch,
)
from .publish import table_republish
from .quick import table_quick
from .rematch import table_rematch
from .sweep import tables_sweep
from .tables import (
    play_computer,
    table_add_bot,
    table_create,
    table_create_for_mode,
    table_create_for_players,
    table_leave,
    table_pair_check,
    table_sit,
    table_start_pair,
)

__all__ = [
    "OfflineUpload",
    "OfflineUploadError",
    "TableOpen",
    "analysis_queue",
    "analysis_request",
    "analysis_request_automatic",
    "analysis_request_import",
    "analysis_run",
    "analysis_seed",
    "chat_post",
    "clocks_watched",
    "game_finish",
    "games_in_play",
    "games_leave",
    "import_delete",
    "import_digest",
    "import_keep",
    "import_seed",
    "imported_engine_record",
    "offline_check_run",
    "offline_game_store",
    "play_computer",
    "room_presence_mark",
    "seat_heartbeat",
    "seat_presence",
    "table_watch",
    "table_act",
    "table_add_bot",
    "table_bot_move",
    "table_claim",
    "table_clock_resume",
    "table_close",
    "table_create",
    "table_quick",
    "table_create_for_mode",
    "table_create_for_players",
    "table_hint",
    "table_leave",
    "table_open",
    "table_pair_check",
    "table_presence_publish",
    "table_rematch",
    "table_republish",
    "table_resign",
    "table_sit",
    "table_start_pair",
    "tables_waiting_leave",
    "table_state_undelivered",
    "table_timeout",
    "tables_close_left",
    "tables_sweep",
]
