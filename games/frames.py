"""The JSON bodies of table frames (docs/protocol.md): table meta, seats, clock, ``you``."""
from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.utils import timezone

from . import conf, hooks
from .models import Seat, Table, TableStatus
from .play import BOT_LEVEL_NAMES


def grace_seconds() -> int:
    return int(conf.get("DISCONNECT_GRACE"))


def seat_is_gone(seat: Seat, now: datetime | None = None) -> bool:
    """A human seat whose player has been away longer than the grace period.

    Works without ``disconnect()`` having run: a connected socket pings every 10 s (the
    server writes ``last_seen`` at most every 5 s), so a ``last_seen`` older than the grace
    means the socket is dead too: a player is gone 60 s after their last sign of life, a
    disconnection or a ping.
    """
    if seat.user_id is None:
        return False
    now = now or timezone.now()
    if seat.last_seen is None:
        return False
    return seat.last_seen < now - timedelta(seconds=grace_seconds())


def bot_name(level: int, number: int = 1) -> str:
    """"Computer (Medium)"; the second Medium computer at a table is "Computer 2 (Medium)"."""
    level_name = BOT_LEVEL_NAMES.get(level, level)
    return f"Computer {number} ({level_name})" if number > 1 else f"Computer ({level_name})"


def bot_names(seats) -> dict[int, str]:
    """Seat index → name of every computer seat, unique at the table: computers of the same
    level are numbered in seat order ("Computer (Medium)", "Computer 2 (Medium)", ...)."""
    names: dict[int, str] = {}
    count: dict[int, int] = {}
    for seat in sorted(seats, key=lambda s: s.index):
        if seat.user_id is None and seat.bot_level is not None:
            count[seat.bot_level] = count.get(seat.bot_level, 0) + 1
            names[seat.index] = bot_name(seat.bot_level, count[seat.bot_level])
    return names


def seat_data(seat: Seat, now: datetime, name: str | None = None) -> dict[str, Any]:
    """One seat; ``name`` overrides a computer's name (see ``bot_names``)."""
    if seat.user_id is not None:
        user = seat.user
        return {
            "index": seat.index, "kind": "user", "name": user.public_name,
            "username": user.username, "bot_level": None,
            "connected": bool(seat.connected) and not seat_is_gone(seat, now),
            "gone": seat_is_gone(seat, now), "timeouts": seat.timeouts,
        }
    if seat.bot_level is not None:
        return {
            "index": seat.index, "kind": "bot", "name": name or bot_name(seat.bot_level),
            "username": None, "bot_level": seat.bot_level, "connected": True, "gone": False,
            "timeouts": 0,
        }
    return {
        "index": seat.index, "kind": "empty", "name": "", "username": None, "bot_level": None,
        "connected": False, "gone": False, "timeouts": 0,
    }


def seats_data(seats: list[Seat]) -> list[dict[str, Any]]:
    now = timezone.now()
    names = bot_names(seats)
    return [seat_data(s, now, names.get(s.index)) for s in sorted(seats, key=lambda s: s.index)]


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
                # public once the game is over, however it ended (a forfeit's view has none)
                "seed": game.seed,
            }
            if game.rated:
                # Each seat's rating change, once the game is rated (else an empty dict; the
                # ``ratings`` frame follows): answered by ``games.hooks.rating_changes``.
                changes = hooks.rating_changes([game.pk]).get(game.pk, {})
                finish["rating_changes"] = {
                    str(p.seat): changes[p.user_id] for p in players if p.user_id in changes
                }
    rematch_url = table.rematch_table.get_absolute_url() if table.rematch_table_id else None
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


def you_data(*, user, seat: int | None, table: dict[str, Any], seats: list[dict]) -> dict:
    """The per-connection part of a frame."""
    authenticated = bool(user and user.is_authenticated)
    playing = table["status"] == TableStatus.PLAYING
    can_claim = False
    if seat is not None and playing:
        can_claim = any(s["gone"] for s in seats if s["index"] != seat and s["kind"] == "user")
    can_sit = (
        authenticated and seat is None and table["status"] == TableStatus.OPEN
        and table["seconds_per_turn"] > 0 and any(s["kind"] == "empty" for s in seats)
    )
    return {
        "role": "player" if seat is not None else "spectator",
        "seat": seat,
        "username": user.username if authenticated else None,
        "can_claim": can_claim,
        "can_sit": can_sit,
        "can_chat": authenticated,
    }


def chat_data(message, seat_by_user: dict[int, int]) -> dict[str, Any]:
    return {
        "id": message.pk, "username": message.user.username, "name": message.user.public_name,
        "seat": seat_by_user.get(message.user_id), "text": message.text,
        "at": message.created_at.isoformat().replace("+00:00", "Z"),
    }
