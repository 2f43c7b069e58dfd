"""The table socket (``/ws/table/<id>/``): thin. Parse, check, call a service, send.

Protocol: docs/protocol.md (Tables). The framing (flood close, size limit, JSON, the map from
message type to a typed message and its handler) is ``core.sockets``, shared with the
notification socket. Every service call runs in a worker thread through
``database_sync_to_async`` and hands back the frames it publishes in an ``Outbox``, which
this consumer sends; frames produced elsewhere reach it through the channel-layer groups of
``games.broadcast``.
"""
from __future__ import annotations

import asyncio
import logging
from urllib.parse import parse_qs

from core import channels, sockets
from core.channels import Outbox
from core.sockets import INFRASTRUCTURE_ERRORS, UNAVAILABLE, FramedConsumer, Message

from . import broadcast, conf, frames, hooks, selectors, services, watchers
from .exceptions import GameServiceError, LeftGame
from .messages import Action, AddBot, Chat, Ping, Rematch, Simple, Sit
from .models import Table
from .socket_work import (
    PRIVATE_STARTED_CLOSE,
    UNAVAILABLE_CLOSE,
    DeadlineWatcher,
    PingAnswers,
    api_only,
    bot_session,
    db_call,
    seated_socket,
    within,
)

log = logging.getLogger(__name__)


class TableConsumer(DeadlineWatcher, PingAnswers, FramedConsumer):
    max_frame = 4096
    table_id: int
    seat: int | None = None
    joined: tuple[str, ...] = ()
    # Users whose chat this connection must not see (games.hooks; loaded with each snapshot).
    hidden: frozenset[int] = frozenset()
    user_group: str | None = None
    deadline_timer: asyncio.TimerHandle | None = None
    counted = False  # counted among this process's seated sockets (the clocks heartbeat)
    watching = False  # counted among the table's watchers (games.watchers)
    gone = False  # disconnected: timers must not start again
    opened = False  # the open was allowed: the table's events may be forwarded
    left = False  # this person left the game, which goes on without them (a computer's seat)
    user = None
    bot_on_site = False  # a bot account's session cookie: it watches (socket_work.api_only)

    def flood(self) -> tuple[int, float]:
        """``GAMES_WS_FLOOD``: frames per seconds before the socket is closed."""
        return conf.get("WS_FLOOD")

    # ------------------------------------------------------------------ lifecycle

    async def connect(self):
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        query = parse_qs(self.scope.get("query_string", b"").decode("latin-1"))
        self.invite = (query.get("invite") or [""])[0][:64]
        outbox = Outbox()
        try:
            # The group first: a frame published during the read waits in this socket's
            # queue (events are handled once ``connect`` returns, if allowed: ``dispatch``).
            await self._join_groups()
            self.user, opened = await db_call(self._open)(outbox)
        except INFRASTRUCTURE_ERRORS:
            log.warning("table %s: socket refused, the database is not answering", self.table_id)
            await self.accept()
            await self.close(code=UNAVAILABLE_CLOSE)
            return
        if opened is None or not opened.allowed:
            # Accept, then close with a code the page shows (a refusal gives it only 1006).
            await self.accept()
            # (a private table without its link is closed as a missing one: 4404; with it,
            # once its game has started: 4410)
            await self.close(code=PRIVATE_STARTED_CLOSE if opened and opened.too_late else 4404)
            return
        self.seat, self.hidden, self.opened = opened.seat, opened.hidden, True
        await self.accept()
        if self.user is not None and self.user.is_authenticated:
            self.user_group = broadcast.user_tables_group(self.user.pk)
            await self.channel_layer.group_add(self.user_group, self.channel_name)
        if self.seat is not None:
            self._count_seated(True)
            await channels.asend(outbox.take())
        if opened.snapshot is not None:
            self.left = bool(opened.snapshot["you"].get("left"))
            self._watch_clock(opened.snapshot.get("clock"))
            await self._send(opened.snapshot)
        if self.seat is None:
            await self._set_watching(True)

    def _open(self, outbox: Outbox):
        """One thread trip: the session's user, then ``services.table_open``."""
        user = sockets.resolve_user(self.scope)
        self.bot_on_site = bot_session(self.scope, user)
        return user, services.table_open(table_id=self.table_id, user=user,
                                         invite=self.invite, outbox=outbox,
                                         watch_only=self.bot_on_site, conn=self.channel_name)

    async def dispatch(self, message):
        # A refused socket has joined the table's group already (``connect``): no events.
        if not self.opened and message["type"].startswith("table."):
            return
        await super().dispatch(message)

    def _count_seated(self, seated: bool) -> None:
        """Keep the process's clocks heartbeat running while it has seated sockets."""
        if seated != self.counted:
            self.counted = seated
            seated_socket(1 if seated else -1)

    def _user_id(self) -> int | None:
        """The socket's account, None for an anonymous visitor."""
        user = self.user
        return user.pk if user is not None and user.is_authenticated else None

    async def _set_watching(self, on: bool) -> None:
        """Count this socket among the table's watchers (a spectator's) or no more; the
        players see the count (``games.watchers``). Never fails the socket: a count that
        cannot be written is only a count."""
        if on == self.watching:
            return
        self.watching = on
        outbox = Outbox()
        try:
            await db_call(services.table_watch)(table_id=self.table_id, conn=self.channel_name,
                                                on=on, user_id=self._user_id(), outbox=outbox)
            await channels.asend(outbox.take())
        except INFRASTRUCTURE_ERRORS:
            log.warning("table %s: the watchers' count was not updated", self.table_id)

    async def _mark_present(self, connected: bool = True):
        """This connection holds a seat: mark it (dis)connected and tell the table."""
        self._count_seated(connected)
        outbox = Outbox()
        await db_call(services.seat_presence)(table_id=self.table_id, user=self.user,
                                              connected=connected, outbox=outbox,
                                              conn=self.channel_name)
        await channels.asend(outbox.take())

    async def disconnect(self, code):
        self.gone = True
        self._watch_clock(None)
        self._count_seated(False)
        for group in self.joined:
            await self.channel_layer.group_discard(group, self.channel_name)
        self.joined = ()
        if self.user_group:
            await self.channel_layer.group_discard(self.user_group, self.channel_name)
            self.user_group = None
        if self.seat is not None:
            await self._mark_present(connected=False)
        await self._set_watching(False)

    async def _join_groups(self):
        """Join the table's group (every frame of the table comes through it; a seat change
        needs no new group, which matters with the pub/sub layer: leaving a group's last
        member unsubscribes the process, and frames published meanwhile would be lost)."""
        if not self.joined:
            self.joined = (broadcast.table_group(self.table_id),)
            for group in self.joined:
                await self.channel_layer.group_add(group, self.channel_name)

    # ------------------------------------------------------------------ client → server

    async def _call(self, fn, message_id=None, **kwargs):
        """Run a service; turn its refusal into an error frame. Returns (ok, result).
        The service puts the frames it publishes after its commit in this call's
        ``Outbox`` (also when it raises after committing); they are sent from here, on the
        event loop, before the reply."""
        outbox = Outbox()

        def run():
            return fn(outbox=outbox, **kwargs)

        def late(job):
            # Answered ``unavailable`` already; what the work did is published now.
            if not job.cancelled() and job.exception() is None:
                asyncio.ensure_future(self._deliver(outbox))
            elif not job.cancelled():
                log.info("table %s: late %s ended with %r", self.table_id,
                         getattr(fn, "__name__", fn), job.exception())

        try:
            result = await within(db_call(run)(), on_late=late)
            await self._deliver(outbox)
        except GameServiceError as exc:
            await self._deliver(outbox)
            await self._error(exc.code, exc.message, message_id, with_version=True)
            if exc.code in ("stale_version", "duplicate"):
                await self._send_snapshot()
            return False, None
        except INFRASTRUCTURE_ERRORS as exc:
            # The service's transaction failed (nothing was stored) or has not answered in
            # time (it may still be applied): the same move may be sent again with the same
            # id; ``duplicate`` then means it was applied.
            log.warning("table %s: %s refused, infrastructure error: %r",
                        self.table_id, getattr(fn, "__name__", fn), exc)
            await self._error("unavailable", UNAVAILABLE, message_id)
            return False, None
        return True, result

    async def _deliver(self, outbox: Outbox):
        """Publish what the service put in ``outbox``; a ``state`` frame that could not be
        published stops its player's clock until they are shown the table. Then the
        follow-ups the service left in it (a computer's move to queue)."""
        failed = await channels.asend(outbox.take())
        for table_id, version in broadcast.undelivered_states(failed):
            try:
                await db_call(services.table_state_undelivered)(table_id=table_id, version=version)
            except INFRASTRUCTURE_ERRORS:
                log.exception("table %s: could not stop the clock", table_id)
        if outbox.after:
            try:
                await db_call(outbox.run_after_sent)()
            except Exception:  # a computer's late move is played by the sweep
                log.exception("table %s: a follow-up failed", self.table_id)

    async def on_action(self, message: Action):
        if self.seat is None:  # (a person who left: told so; a spectator: not seated)
            code, words = ((LeftGame.code, LeftGame.default_message) if self.left
                           else ("not_seated", "Only the players at this table may move."))
            await self._error(code, words, message.id, with_version=True)
            return
        ok, new_version = await self._call(
            services.table_act, message.id, table_id=self.table_id, user=self.user,
            action=message.action, expected_version=message.version, client_id=message.id,
        )
        if ok:
            await self._send({"type": "ack", "id": message.id, "version": new_version})

    async def on_hint(self, message: Simple):
        """The Hard computer's move in this player's place, to this socket only."""
        ok, hint = await self._call(services.table_hint, message.id, table_id=self.table_id,
                                    user=self.user)
        if ok:
            await self._send({"type": "hint", "id": message.id, **hint})

    async def on_snapshot(self, message: Message):
        await self._send_snapshot()

    async def on_chat(self, message: Chat):
        await self._call(services.chat_post, table_id=self.table_id, user=self.user,
                         text=message.text)

    async def _simple(self, fn, message: Simple, **kwargs):
        ok, result = await self._call(fn, message.id, table_id=self.table_id, user=self.user,
                                      **kwargs)
        if ok:
            version = getattr(result, "version", None)
            await self._send({"type": "ack", "id": message.id, "version": version})

    async def on_resign(self, message: Simple):
        await self._simple(services.table_resign, message)

    async def on_claim(self, message: Simple):
        await self._simple(services.table_claim, message)

    async def on_rematch(self, message: Rematch):
        await self._simple(services.table_rematch, message, accept=message.accept)

    async def on_sit(self, message: Sit):
        await self._simple(services.table_sit, message, seat=message.seat, invite=self.invite)

    async def on_leave(self, message: Simple):
        await self._simple(services.table_leave, message)

    async def on_add_bot(self, message: AddBot):
        await self._simple(services.table_add_bot, message, seat=message.seat,
                           level=message.level)

    def _ping(self):
        if self.seat is not None:
            services.seat_heartbeat(table_id=self.table_id, user=self.user,
                                    conn=self.channel_name)
        elif self.watching:  # (a spectator's sign of life: its count does not lapse)
            watchers.watch(self.table_id, self.channel_name, self._user_id())
        return self._version()

    HANDLERS = {
        "action": (api_only(on_action), Action),
        "snapshot": (on_snapshot, Message),
        "hint": (api_only(on_hint), Simple),
        "chat": (on_chat, Chat),
        "resign": (api_only(on_resign), Simple),
        "claim": (api_only(on_claim), Simple),
        "rematch": (api_only(on_rematch), Rematch),
        "sit": (api_only(on_sit), Sit),
        "leave": (api_only(on_leave), Simple),
        "add_bot": (api_only(on_add_bot), AddBot),
        "ping": (PingAnswers.on_ping, Ping),
    }

    # ------------------------------------------------------------------ server → client

    async def _error(self, code, message=None, message_id=None, with_version=False):
        """An ``error`` frame; it always carries ``id`` (the message's, or null) and, for a
        refusal of the rules, the table's current ``version``."""
        frame = {"type": "error", "code": code,
                 "message": message or "Refused.", "id": message_id}
        if with_version:
            try:
                frame["version"] = await within(db_call(self._version)(), 1.0)
            except INFRASTRUCTURE_ERRORS:
                frame["version"] = None
        await self._send(frame)

    def _version(self):
        return Table.objects.filter(pk=self.table_id).values_list("version", flat=True).first()

    def _snapshot(self):
        """The snapshot, and the chat senders hidden from this user, read afresh (a block
        made since the socket opened applies from then on)."""
        hidden = hooks.hidden_senders(self.user)
        # A player being shown the table: a clock stopped by a lost frame starts now.
        services.table_clock_resume(table_id=self.table_id, seat=self.seat)
        return selectors.table_snapshot(self.table_id, self.user, self.seat, hidden), hidden

    async def _send_snapshot(self):
        try:
            snapshot, self.hidden = await within(db_call(self._snapshot)())
        except INFRASTRUCTURE_ERRORS:
            await self._error("unavailable", "The table could not be loaded right now; "
                              "ask again in a moment.")
            return
        if snapshot is not None:
            self._watch_clock(snapshot.get("clock"))
            await self._send(snapshot)

    def _my_seat_in(self, seats):
        if self.bot_on_site:  # (a bot's own session watches: socket_work.api_only)
            return None
        user = self.user if self.user and self.user.is_authenticated else None
        return next((s["index"] for s in seats if user and s["username"] == user.username), None)

    async def table_frames(self, event):
        """One version's frames, one per human seat and one for spectators: forward ours."""
        # A seat no longer a human's gets the spectators' frame, which shows that.
        bodies = event["frames"]
        audience = frames.audience_of(bodies, self.seat)
        frame = bodies[audience]
        seat_now = self._my_seat_in(frame["seats"])
        if seat_now is None and frames.sent_away(frame, self.user):
            self.opened = False  # (no chat or presence event is forwarded after this)
            await self.close(code=PRIVATE_STARTED_CLOSE)  # (watched by the invite link)
            return
        if seat_now != self.seat:
            self.left = frames.left_of(frame["seats"], self.user) is not None
            # Sat down or left (maybe from another tab): start afresh. A new seat is marked
            # connected (and everyone is told) before the snapshot goes out.
            self.seat = seat_now
            if seat_now is not None:
                await self._set_watching(False)
                await self._mark_present()
            else:
                self._count_seated(False)
                await self._set_watching(True)
            await self._send_snapshot()
            return
        text, clock = frames.forwarded_text(event, audience, user=self.user, seat=self.seat)
        self._watch_clock(clock)
        await self.send(text_data=text)

    async def table_chat(self, event):
        if event.get("sender_id") in self.hidden:
            return
        await self._send({"type": "chat", "message": event["message"]})

    async def table_hidden_changed(self, event):
        """A block was made or lifted: reload the hidden senders; a fresh snapshot replaces the
        chat shown so far (without the newly hidden lines, or with the newly visible ones)."""
        await self._send_snapshot()

    async def table_presence(self, event):
        you = frames.you_data(user=self.user, seat=self.seat, table=event["table"],
                              seats=event["seats"])
        await self._send({"type": "presence", "seats": event["seats"], "you": you,
                          "watchers": event.get("watchers", 0)})

