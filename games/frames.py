"""The JSON bodies of table frames (docs/protocol.md): the one builder of the ``state`` and
``snapshot`` frames and of their parts (table meta, seats, clock, view, ``you``).

``broadcast`` only carries what is built here; services, selectors and the table socket call
in here for every body they send."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from django.utils import timezone

from core import wire
from core.opaque import keyed_number
from games import engine as E

from . import hooks, states
from .bots.levels import computer_name, computer_short_name
from .models import Ending, Seat, Table, TableStatus
from .seat_rules import game_goes_on, hints_allowed


def seat_data(seat: Seat, now: datetime, name: str | None = None,
              short: str | None = None) -> dict[str, Any]:
    """One seat; ``name`` and ``short`` override a computer's name and short label (see
    ``Seat.bot_names``). ``short_name`` is what a narrow seat box shows when ``name`` does
    not fit (a computer's level and number; a person's own name)."""
    if seat.user_id is not None:
        user = seat.user
        return {
            "index": seat.index, "kind": "user", "name": user.public_name,
            "short_name": user.public_name,
            "username": user.username, "bot_level": None, "is_bot": bool(user.is_bot),
            "connected": bool(seat.connected) and not seat.is_gone(now),
            "gone": seat.is_gone(now), "timeouts": seat.timeouts, "left": None,
        }
    if seat.bot_level is not None:
        return {
            "index": seat.index, "kind": "bot", "name": name or computer_name(seat.bot_level),
            "short_name": short or computer_short_name(seat.bot_level),
            "username": None, "bot_level": seat.bot_level, "is_bot": False, "connected": True,
            "gone": False, "timeouts": 0, "left": left_data(seat.left),
        }
    return {
        "index": seat.index, "kind": "empty", "name": "", "short_name": "", "username": None,
        "bot_level": None, "is_bot": False,
        "connected": False, "gone": False, "timeouts": 0, "left": None,
    }


def left_data(left: dict[str, Any] | None) -> dict[str, Any] | None:
    """A seat's ``left``: who left the game there, how, when and at what place (a computer
    plays the seat on); None for a seat whose player did not leave."""
    if left is None:
        return None
    return {key: left.get(key)
            for key in ("username", "name", "reason", "at", "place", "after_hands")}


def seats_data(seats: list[Seat]) -> list[dict[str, Any]]:
    now = timezone.now()
    names, shorts = Seat.bot_names(seats), Seat.bot_short_names(seats)
    return [seat_data(s, now, names.get(s.index), shorts.get(s.index))
            for s in sorted(seats, key=lambda s: s.index)]


def table_meta(table: Table) -> dict[str, Any]:
    finish = None
    if table.status in (TableStatus.FINISHED, TableStatus.ABANDONED):
        game = getattr(table, "game", None) if table.pk else None
        if game is not None:
            players = list(game.players.all())
            finish = {
                "game_id": game.pk, "url": game.get_absolute_url(), "ending": game.ending,
                "winner_seat": game.winner_seat, "loser_seat": game.loser_seat,
                "scores": [p.score for p in players],
                "places": [p.place for p in players],
                # public once the game is over, however it ended (a forfeit's view has none)
                "seed": game.seed,
            }
            if game.ending == Ending.NO_SHOW:  # everyone who never came (one lost for it)
                finish["absent_seats"] = [p.seat for p in players if p.left == Ending.NO_SHOW]
            if game.rated:
                # (each seat's rating change is in the frame's ``ratings``: ``ratings_data``)
                # Why a game created rated changes no rating ("ended before both players
                # moved"), from the ratings app's one rule; absent when it counts.
                reason = hooks.unrated_reasons([game]).get(game.pk)
                if reason:
                    finish["unrated"] = reason
    # The rematch table's address needs only its id: no read of its row.
    rematch_url = (Table(pk=table.rematch_table_id).get_absolute_url()
                   if table.rematch_table_id else None)
    return {
        "id": table.pk, "mode": table.mode, "mode_name": table.get_mode_display(),
        "room": {"slug": table.room.slug, "name": table.room.name},
        "seat_count": table.seat_count, "target": table.target, "rated": table.rated,
        "seconds_per_turn": table.seconds_per_turn, "private": table.private,
        "status": table.status,
        "created_by": table.created_by.username if table.created_by_id else None,
        "finish": finish,
        "rematch": {
            "offers": list(table.rematch_offers or []), "table_id": table.rematch_table_id,
            "url": rematch_url,
        },
    }


def ratings_data(mode: str, seats: Sequence[Seat],
                 finish: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The frame's ``ratings``: one entry per seated person, in seat order, ``{"seat",
    "rating", "provisional", "label", "change"}``, answered by ``games.hooks.table_ratings``
    (``change`` is null until the table's finished game has been rated)."""
    players = {s.index: s.user_id for s in seats if s.user_id is not None}
    game_id = finish["game_id"] if finish else None
    answer = hooks.table_ratings(mode, players, game_id)
    return [{"seat": seat, **answer[seat]} for seat in sorted(answer) if seat in players]


def clock_data(table: Table, seats) -> dict[str, Any] | None:
    """The turn clock clients show: a person's deadline (a computer's is the server's own
    safety net and is not shown)."""
    if table.status != TableStatus.PLAYING or table.turn_deadline is None:
        return None
    if any(s.index == table.deadline_seat and s.bot_level is not None for s in seats):
        return None
    return {
        "seat": table.deadline_seat,
        "deadline": table.turn_deadline.isoformat().replace("+00:00", "Z"),
        "seconds_per_turn": table.seconds_per_turn,
    }


def with_remaining(clock: dict[str, Any] | None) -> dict[str, Any] | None:
    """Add ``remaining_ms`` at the moment of sending."""
    if not clock:
        return clock
    deadline = datetime.fromisoformat(clock["deadline"].replace("Z", "+00:00"))
    remaining = (deadline - timezone.now()).total_seconds() * 1000
    return {**clock, "remaining_ms": max(0, int(remaining))}


def _goes_on_without(seats: list[dict], leaving: set[int]) -> bool:
    """``game_goes_on`` read from a frame's seats."""
    staying = [s for s in seats
               if s["index"] not in leaving and not s.get("left") and s["kind"] != "empty"]
    return game_goes_on(len(seats), len(staying), sum(s["kind"] == "user" for s in staying))


def you_data(*, user, seat: int | None, table: dict[str, Any], seats: list[dict]) -> dict:
    """The per-connection part of a frame."""
    authenticated = bool(user and user.is_authenticated)
    playing = table["status"] == TableStatus.PLAYING
    can_claim = resign_goes_on = claim_goes_on = False
    if seat is not None and playing:
        gone = {s["index"] for s in seats
                if s["gone"] and s["index"] != seat and s["kind"] == "user"}
        can_claim = bool(gone)
        resign_goes_on = _goes_on_without(seats, {seat})
        claim_goes_on = can_claim and _goes_on_without(seats, gone)
    can_sit = (  # a bot account never sits as a person does (docs/bot-api.md)
        authenticated and not getattr(user, "is_bot", False)
        and seat is None and table["status"] == TableStatus.OPEN
        and table["seconds_per_turn"] > 0 and any(s["kind"] == "empty" for s in seats)
    )
    # (a computer playing on for a person who left is no computer to take hints against)
    can_hint = playing and hints_allowed(
        rated=table["rated"], bot_seats=[s["kind"] == "bot" and not s.get("left")
                                         for s in seats], seat=seat)
    return {
        "role": "player" if seat is not None else "spectator",
        "seat": seat,
        "username": user.username if authenticated else None,
        "can_claim": can_claim,
        "can_sit": can_sit,
        "can_chat": authenticated,
        "can_hint": can_hint,
        # whether the game would go on without this player if they resigned, or without the
        # gone players if this one claimed (``game_goes_on``): the confirmation and the
        # claim button say which
        "resign_goes_on": resign_goes_on,
        "claim_goes_on": claim_goes_on,
        # the seat this person left, whose game goes on without them (a computer plays it)
        "left": left_of(seats, user),
    }


def sent_away(frame: dict[str, Any], user) -> bool:
    """Whether watching ``user`` must go: a started private game is its players' alone."""
    t = frame["table"]
    return bool(t["private"]) and t["status"] != "open" and left_of(frame["seats"], user) is None


def left_of(seats: list[dict[str, Any]], user) -> dict[str, Any] | None:
    """The ``left`` of the seat ``user`` left (a game that goes on without them, a computer
    in their seat), from a frame's seats; None when they left none."""
    if not (user and user.is_authenticated):
        return None
    return next((s["left"] for s in seats
                 if s.get("left") and s["left"]["username"] == user.username), None)


def chat_data(message, seat_by_user: dict[int, int]) -> dict[str, Any]:
    return {
        "id": keyed_number("chat-line", message.pk), "username": message.user.username,
        "name": message.user.public_name,
        "seat": seat_by_user.get(message.user_id), "text": message.text,
        "at": message.created_at.isoformat().replace("+00:00", "Z"),
    }


# ------------------------------------------------------------------ what a seat may see


def view(state: E.GameState, seat: int | None, *, closed: bool = False) -> dict[str, Any]:
    """The view a seat (or a spectator, ``None``) may see. ``closed``: the table's game has
    ended although its state is not over (a resignation, a timeout, an abandonment): nobody
    is to act and there is no move to make (the engine's view still offered the draw)."""
    shown = E.spectator_view(state) if seat is None else E.view_for(state, seat)
    if closed and not state.is_over:
        shown["to_act"] = None
        shown["legal_actions"] = []
    return shown


def _closed(status: str | None) -> bool:
    return status in (TableStatus.FINISHED, TableStatus.ABANDONED)


def visible_events(events: Sequence[E.Event], seat: int | None) -> list[dict[str, Any]]:
    return [e.to_dict() for e in events if e.visible_to(seat)]


def visible_last(last: dict[str, Any] | None, state: E.GameState | None,
                 seat: int | None) -> dict[str, Any] | None:
    """The move that produced a frame, as ``seat`` (None: a spectator) may see it
    (``engine.action_seen_by``: a knock's card stays face down until the hand is scored)."""
    if last is None or state is None:
        return last
    action = last.get("action", "")
    shown = E.action_seen_by(state, str(action), last.get("seat"), seat)
    return last if shown == action else {**last, "action": shown}


# ------------------------------------------------------------------ the frames


def recipient_key(seat: int | None) -> str:
    """The key of a seat's frame (``"0"``, ``"1"``, ...) or the spectators' (``"spectators"``)
    among one version's ``state`` frames."""
    return "spectators" if seat is None else str(seat)


def frame_for(bodies: dict[str, dict[str, Any]], seat: int | None) -> dict[str, Any]:
    """A connection's frame among one version's: its seat's, else (a spectator, or a seat that
    is no longer a human's) the spectators'."""
    return bodies[audience_of(bodies, seat)]


def audience_of(bodies: dict[str, dict[str, Any]], seat: int | None) -> str:
    """The key of the frame ``frame_for`` picks: the seat's own if it has one, else the
    spectators'."""
    key = recipient_key(seat)
    return key if key in bodies else recipient_key(None)


def state_frame(*, version: int, table: dict[str, Any], seats: list[dict[str, Any]],
                clock: dict[str, Any] | None, state: E.GameState | None, seat: int | None,
                events: Sequence[E.Event] = (), last: dict[str, Any] | None = None,
                ratings: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The ``state`` frame of one version for one seat (None: the spectators), without the
    per-connection parts (``for_connection``). ``ratings`` None: the version changed none
    (the key is left out; ``table_state_frames``)."""
    frame = {"type": "state", "version": version, "table": table, "seats": seats,
             "clock": clock,
             "view": view(state, seat, closed=_closed(table.get("status")))
             if state is not None else None,
             "events": visible_events(events, seat)}
    if ratings is not None:
        frame["ratings"] = ratings
    if last is not None:
        frame["last"] = visible_last(last, state, seat)
    return frame


def state_frames(*, version: int, table: dict[str, Any], seats: list[dict[str, Any]],
                 clock: dict[str, Any] | None, state: E.GameState | None,
                 events: Sequence[E.Event] = (), last: dict[str, Any] | None = None,
                 human_seats: Sequence[int] = (),
                 ratings: list[dict[str, Any]] | None = None) -> dict[str, dict[str, Any]]:
    """The ``state`` frames of one version, by ``recipient_key``: each human seat's own and
    the spectators'."""
    return {
        recipient_key(seat): state_frame(version=version, table=table, seats=seats,
                                         clock=clock, state=state, seat=seat, events=events,
                                         last=last, ratings=ratings)
        for seat in [*human_seats, None]
    }


def table_state_frames(table: Table, seats: list[Seat], state: E.GameState | None = None,
                       events: Sequence[E.Event] = (), last: dict[str, Any] | None = None,
                       ) -> Callable[[], dict[str, dict[str, Any]]]:
    """Read now (inside the move's transaction) what the table's current version shows, and
    return the builder of its ``state`` frames (``state_frames``), called after the commit:
    the seats' views (and the ratings, ``ratings_data``) are not built while the table row
    is locked.

    A move of a game still being played (``last`` given, the table playing) changes nobody's
    rating and no seat: its frames leave ``ratings`` out (the client keeps the ones it has)
    and spare every move the question to the ratings app. Every other version carries them
    (a seat taken or left, the start, the end, the rated game's republished table)."""
    if state is None and table.state:
        state = states.load(table.state)
    meta = table_meta(table)
    parts = {"version": table.version, "table": meta, "seats": seats_data(seats),
             "clock": clock_data(table, seats), "state": state, "events": tuple(events),
             "last": last, "human_seats": [s.index for s in seats if s.user_id is not None]}
    if last is not None and table.status == TableStatus.PLAYING:
        return lambda: state_frames(**parts)
    mode, people = table.mode, [s for s in seats if s.user_id is not None]
    return lambda: state_frames(**parts, ratings=ratings_data(mode, people, meta["finish"]))


def for_connection(frame: dict[str, Any], *, user, seat: int | None) -> dict[str, Any]:
    """A ``state`` frame as one connection gets it: with its ``you`` and the clock's time
    left at the moment of sending."""
    frame = dict(frame)
    frame["you"] = you_data(user=user, seat=seat, table=frame["table"], seats=frame["seats"])
    frame["clock"] = with_remaining(frame.get("clock"))
    return frame


def state_spliced(frame: dict[str, Any]) -> wire.Spliced:
    """A ``state`` frame's text (as ``frame_for`` gives it) around its per-connection parts,
    encoded once for every connection of its audience (``connection_text``)."""
    return wire.Spliced.around(frame, "clock")


def connection_text(spliced: wire.Spliced, frame: dict[str, Any], *, user,
                    seat: int | None) -> tuple[str, dict[str, Any] | None]:
    """(text, clock): the JSON text of ``for_connection(frame, ...)``, byte for byte, from the
    audience's ``spliced`` text; and the clock it shows (time left at this moment)."""
    clock = with_remaining(frame.get("clock"))
    you = you_data(user=user, seat=seat, table=frame["table"], seats=frame["seats"])
    return spliced.text(clock, you=you), clock


# The texts of the state frames this process forwarded last, by (publish, audience): encoded
# once per audience of a message, not once per socket (``core.wire``).
STATE_TEXTS = wire.Memo(512)


def forwarded_text(event: dict[str, Any], audience: Any, *, user,
                   seat: int | None) -> tuple[str, dict[str, Any] | None]:
    """(text, clock) of the ``state`` frame of a published message (``event``) for one
    connection of ``audience``: the audience's text is encoded once per process and message
    (keyed by the message's ``publish`` id), the connection's clock and ``you`` spliced in."""
    frame = event["frames"][audience]
    publish = event.get("publish")
    if publish is None:  # sent by a process of an older version
        spliced = state_spliced(frame)
    else:
        spliced = STATE_TEXTS.get((publish, audience), lambda: state_spliced(frame))
    return connection_text(spliced, frame, user=user, seat=seat)


def snapshot_frame(table: Table, seats: list[Seat], *, user, seat: int | None,
                   chat: list[dict[str, Any]]) -> dict[str, Any]:
    """The ``snapshot`` frame for a connection: the table as it stands, ``you``, the chat and
    the players' ratings. Once the table is finished its view shows the seed (a forfeited
    game's state is not over, so the engine's view alone would not)."""
    meta, seats_d, shown = table_meta(table), seats_data(seats), None
    timed_out: list[list[int]] = []
    if table.state:
        state = states.load(table.state)
        shown = view(state, seat, closed=_closed(table.status))
        if table.status == TableStatus.FINISHED:
            shown.setdefault("seed", table.seed)
        timed_out = hand_timeouts(table, state)
    return {
        "type": "snapshot",
        "version": table.version,
        "table": meta,
        "seats": seats_d,
        "you": you_data(user=user, seat=seat, table=meta, seats=seats_d),
        "clock": with_remaining(clock_data(table, seats)),
        "view": shown,
        "chat": chat,
        "ratings": ratings_data(table.mode, seats, meta["finish"]),
        "timed_out": timed_out,
    }


def hand_timeouts(table: Table, state: E.GameState) -> list[list[int]]:
    """The snapshot's ``timed_out``: each ``[start, end]`` slice of the view's ``history``
    (this hand's) that the server played because a clock ran out."""
    return [[start, end] for hand, start, end in table.hand_timeouts or []
            if hand == state.hand_number]
