"""Tunable numbers of live play. Each can be overridden by a ``GAMES_<NAME>`` setting; the
defaults live here so the app works with nothing configured. Values are read when used, so a
test's ``settings`` override applies at once."""
from __future__ import annotations

from typing import Any

from core.conf import Settings

DEFAULTS: dict[str, Any] = {
    # A computer "thinks" for a random time in this range (seconds) before its move.
    "BOT_DELAY": (0.6, 1.5),
    # A computer's turn has a deadline too (seconds, not shown to players): if its task is
    # lost, the sweep plays the move once it passes.
    "BOT_TURN_LIMIT": 8,
    # Extra seconds on the clock for a game's first turn.
    "FIRST_TURN_EXTRA": 10,
    # Seconds away before opponents may claim the game.
    "DISCONNECT_GRACE": 60,
    # A seat shown connected whose pings have not arrived for this long (seconds) is not
    # timed out: its turn starts again (the site may have failed to deliver it).
    "HEARD_WINDOW": 30,
    # Timeouts in a row that forfeit the game.
    "MAX_TIMEOUTS": 3,
    # Chat lines per user: at most this many per this many seconds.
    "CHAT_RATE": (5, 10),
    # Each Daphne process with seated table sockets stamps the clocks heartbeat this often
    # (seconds; 0: never, as in the test suite, where no process outlives its test).
    "CLOCKS_BEAT": 1.0,
    # The clocks heartbeat (stamped every second by each Daphne with table sockets and every
    # 2 s by the sweep) older than this (seconds): the site was down (its database, or every
    # process), so the clocks went unwatched ...
    "OUTAGE_GAP": 4,
    # ... and the turns running then get that time back, at most this much (seconds) ...
    "OUTAGE_GIVE_BACK_MAX": 300,
    # ... and at least this long from the end of the gap (seconds): time for every player to be
    # back. After a restart the worker's sweep can see the gap before Daphne listens again
    # (up to 13 s seen on a loaded machine), and a page that lost its socket tries again at
    # most 9.6 s apart (static/js/table/sync.js Backoff); a move refused as unavailable is
    # sent again after 1, 2 and 4 s. With 10 s a restart charged timeouts to players whose
    # page had not yet reconnected.
    "OUTAGE_RESUME": 30,
    # The give-back goes through the playing tables this many at a time, each batch in its own
    # short transaction (one UPDATE of 100,000 tables held every row lock for about 20 s).
    "OUTAGE_BATCH": 1000,
    # Tables whose presence the sweep publishes a pass at most (players who crossed the grace
    # period; after a site-wide outage, every seat at once): the rest go on the next pass.
    # About 4 ms a table (bench/sweep_scale.py), so a pass stays well inside its 2 s period.
    "PRESENCE_PER_SWEEP": 250,
    # Open tables with no change for this long (seconds) are closed by the sweep.
    "OPEN_TABLE_TTL": 3 * 3600,
    # ... and sooner, after this long (seconds), when every person seated at one has left
    # both it and the site (no page of the site open to call them back from when it fills).
    "OPEN_TABLE_AWAY": 300,
    # Waiting (not yet started) tables a player may hold a seat at: creating or sitting at
    # one more is refused until one starts or is closed. Keeps one player from filling the
    # room with tables nobody will come to (tables against the computer start at once and
    # are not counted).
    "MAX_WAITING_TABLES": 3,
    # Games against the computer in play at once, per player (people and bot accounts: the
    # bot API starts one per POST).
    "MAX_COMPUTER_TABLES": 10,
    # A game against the computer whose people have all been away this long (seconds: no
    # socket ping, no page) is closed by the sweep as an abandonment by the player (untimed
    # games never time out). Until then it waits under "Your tables" to be resumed: ten
    # minutes ended (as a loss) the games of players who had only closed the laptop.
    "COMPUTER_TABLE_LEFT": 7 * 24 * 3600,
    # Table socket frames a connection may send: at most this many per this many seconds.
    "WS_FLOOD": (100, 20.0),
    # An analysis (docs/analysis.md) queued or running that has given no sign of life for
    # this long (seconds; a running one beats with every progress report, several times a
    # second) is taken as lost (its worker died, or the task was never delivered): it may be
    # asked for again, and no longer holds its requester's one analysis at a time.
    "ANALYSIS_STALE": 300,
    # Progress of a running analysis is stored and sent to its requester at most this often
    # (seconds), and always at the end.
    "ANALYSIS_PROGRESS_EVERY": 0.5,
    # Record files a signed-in person imports are kept to be found again and analysed
    # (docs/records.md): at most this many per person (delete one to keep another) ...
    "IMPORTS_PER_USER": 50,
    # ... each at most this large (bytes of its engine record's JSON, timestamps included;
    # measured: a 100-point Classic game 11-18 KB, a four-player Basic Rummy game of 1,850
    # to 2,950 moves 70-110 KB, so this keeps any game the import reads, 5,000 moves, unless
    # it carries explicit deals).
    "IMPORT_KEEP_MAX_BYTES": 200_000,
}


SETTINGS = Settings("GAMES", DEFAULTS)
# ``conf.get("NAME")``: the value of ``GAMES_NAME`` from settings, else the default above.
get = SETTINGS.get
