"""The table socket's work off its message loop: database calls in worker threads
(``db_call``), answered within ``ANSWER_WITHIN`` seconds whatever the pools hold
(``within``), and the clocks heartbeat each Daphne with seated sockets stamps
(``seated_socket``). Used by ``games.consumers``; docs/operations.md says what an outage does.
"""
from __future__ import annotations

import asyncio
import logging
from typing import Any

from channels.db import database_sync_to_async
from django.conf import settings

from core.sockets import INFRASTRUCTURE_ERRORS

from . import conf, services
from .exceptions import BotSessionRefused

log = logging.getLogger(__name__)

# A seated connection applies the deadline it was shown this long after it falls due (the
# service accepts it from 0.5 s before; the margin absorbs clock differences).
DEADLINE_SLACK = 0.25
# A deadline check that failed (the database is not answering) is tried again this much later.
DEADLINE_RETRY = 2.0
# Close code when the site cannot serve the socket right now (database or channel layer
# down): the client reconnects with its usual backoff.
UNAVAILABLE_CLOSE = 4503
# Close code for a socket of someone not playing at a private table whose game has started
# (they held its invite link): the game is its players' alone. Not reconnected.
PRIVATE_STARTED_CLOSE = 4410
# A client message's database work that has not answered within this many seconds is
# answered ``unavailable`` (within the 3 s docs/protocol.md promises, whatever the thread
# pool or the connection pool hold during an outage); the work itself goes on and its frames
# are published when it ends, so a move may still be applied: sent again with the same id,
# it gets ``duplicate`` then.
ANSWER_WITHIN = 2.5


class NoAnswer(TimeoutError):
    """The database work did not answer within ``ANSWER_WITHIN`` seconds."""


async def within(awaitable, seconds: float = ANSWER_WITHIN, on_late=None):
    """The result of ``awaitable``, or ``NoAnswer`` after ``seconds``. The work is not
    cancelled (it may hold the table's row lock, or be about to commit): ``on_late`` gets its
    task when it is answered too late, to publish what it did."""
    job = asyncio.ensure_future(awaitable)
    try:
        return await asyncio.wait_for(asyncio.shield(job), seconds)
    except TimeoutError:
        if on_late is not None:
            job.add_done_callback(on_late)
        else:  # retrieve the outcome, so a failure is not reported as never retrieved
            job.add_done_callback(lambda j: j.cancelled() or j.exception())
        raise NoAnswer() from None


# The clocks heartbeat of this process (``GAMES_CLOCKS_BEAT``): each Daphne with seated table
# sockets stamps it, the proof that the site watches clocks (``services.clocks_watched``).
_seated_sockets = 0
_beat: asyncio.Task | None = None


async def _clocks_beat():
    while _seated_sockets > 0:
        try:
            await db_call(services.clocks_watched)()
        except Exception as exc:  # the database is down: the gap is what the stamp records
            log.debug("clocks heartbeat failed: %r", exc)
        await asyncio.sleep(conf.get("CLOCKS_BEAT"))


def seated_socket(delta: int) -> None:
    global _seated_sockets, _beat
    _seated_sockets = max(0, _seated_sockets + delta)
    loop = asyncio.get_running_loop()
    if _seated_sockets > 0 and conf.get("CLOCKS_BEAT") > 0 and (
        _beat is None or _beat.done() or _beat.get_loop() is not loop
    ):
        _beat = loop.create_task(_clocks_beat())


def db_call(fn):
    """``fn`` as an awaitable that runs in a worker thread. On PostgreSQL the calls of all
    connections run in parallel threads (each with its own pooled connection; the table's row
    lock orders racing actions), so one table's database round trips never queue behind
    another's. SQLite has a single writer, so there they share Django's one sync thread."""
    parallel = settings.DATABASES["default"]["ENGINE"] != "django.db.backends.sqlite3"
    return database_sync_to_async(fn, thread_sensitive=not parallel)


class DeadlineWatcher:
    """The table consumer's turn clock: a seated connection keeps a timer on the deadline it
    was last shown and applies it when it falls due (``services.table_timeout``). The
    consumer provides ``_send_snapshot``, for a deadline that moved without a frame."""

    table_id: int
    seat: int | None
    gone: bool
    deadline_timer: asyncio.TimerHandle | None

    def _watch_clock(self, clock):
        """Seated connections keep a timer on the turn deadline they were last shown and
        apply it when it falls due (every seat's connections do: the first one applies it,
        the others find it already applied). Tables nobody is connected to are covered by
        the periodic sweep (``games.sweep``), and a deadline lives in the database, so a
        restart loses nothing."""
        if self.deadline_timer is not None:
            self.deadline_timer.cancel()
            self.deadline_timer = None
        if self.seat is None or not clock or clock.get("remaining_ms") is None:
            return
        self.deadline_timer = asyncio.get_running_loop().call_later(
            clock["remaining_ms"] / 1000 + DEADLINE_SLACK, self._deadline_due
        )

    def _deadline_due(self):
        self.deadline_timer = None
        asyncio.ensure_future(self._apply_deadline())

    async def _apply_deadline(self):
        try:
            applied = await db_call(services.table_timeout)(table_id=self.table_id)
        except INFRASTRUCTURE_ERRORS as exc:
            log.warning("deadline of table %s: the database is not answering (%r); trying "
                        "again", self.table_id, exc)
            if self.deadline_timer is None and self.seat is not None and not self.gone:
                self.deadline_timer = asyncio.get_running_loop().call_later(
                    DEADLINE_RETRY, self._deadline_due)
            return
        except Exception:  # the sweep applies it; never let a timer kill the connection
            log.exception("deadline of table %s failed", self.table_id)
            return
        if (not applied and self.deadline_timer is None and self.seat is not None
                and not self.gone):
            # The deadline moved (time given back after an outage, a fresh turn for a player
            # not heard from) and no frame has said so: show the clock as it now is.
            await self._send_snapshot()


class PingAnswers:
    """The table consumer's answers to pings (``on_ping``): each off the socket's message
    loop, one at a time. The consumer provides ``_ping`` (the database's part, in a worker
    thread: returns the table's version) and ``_send``."""

    pinging: asyncio.Future | None = None  # the ping being answered

    async def on_ping(self, message: Any) -> None:
        """A heartbeat (a player's seat is marked seen) answered with the table's version, so
        a client that missed a frame notices and asks for a snapshot. Answered within
        ``ANSWER_WITHIN`` seconds (``version`` null when the database does not answer), off
        the socket's message loop: a move sent after a ping never waits behind it. One at a
        time: a ping that comes while the previous one waits on the database gets ``pong``
        at once, with ``version`` null."""
        if self.pinging is not None and not self.pinging.done():
            await self._send({"type": "pong", "t": message.t, "version": None})
            return
        self.pinging = asyncio.ensure_future(self._pong(message.t))

    async def settle(self) -> None:
        """A ping taken before the flood is answered before the close (within the answer
        time): without this the close overtook its pong when the database was slow."""
        if self.pinging is not None and not self.pinging.done():
            await asyncio.wait([self.pinging], timeout=ANSWER_WITHIN)

    async def _pong(self, t: Any) -> None:
        try:
            version = await within(db_call(self._ping)())
        except INFRASTRUCTURE_ERRORS:
            version = None
        try:
            await self._send({"type": "pong", "t": t, "version": version})
        except Exception:  # the socket closed meanwhile
            pass



def bot_session(scope: dict[str, Any], user: Any) -> bool:
    """True for a bot account's socket opened with a session cookie (not its token)."""
    return bool(getattr(user, "is_bot", False)) and not scope.get("api_token")


def api_only(handler):
    """A table message that plays (a move, a hint, a seat, a resignation...): refused to a
    bot account's site session (``bot_account``), whatever the table: a bot's own session
    watches its tables, it plays only through the API (docs/bot-api.md, "Bot accounts")."""
    async def run(self, message):
        if self.bot_on_site:
            await self._error(BotSessionRefused.code, BotSessionRefused.default_message,
                              getattr(message, "id", None), with_version=True)
            return
        await handler(self, message)
    run.__name__ = handler.__name__
    return run
