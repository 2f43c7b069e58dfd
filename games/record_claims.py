"""What a site record (``ginsite-game/1``) says about how its game ended, checked against the
replay of its moves when it is imported (``records.record_import_with_forfeit``): who
forfeited and why (``forfeit``), and who left before the end (``leavers``), with the seats
the computer played on for them. A claim that is not valid is refused with a clear error
(``RecordImportError``) and nothing is kept (docs/records.md)."""
from __future__ import annotations

from typing import Any

from django.utils.dateparse import parse_datetime

from games import engine as E

from .models import Ending


class RecordImportError(ValueError):
    """A record that cannot be shown: the message says why (for the user)."""


# how a game can be given up (every ``Ending`` but playing it to the end)
FORFEIT_REASONS = tuple(e.value for e in Ending if e != Ending.NORMAL)
REASONS_TEXT = ", ".join(FORFEIT_REASONS[:-1]) + " or " + FORFEIT_REASONS[-1]


def _seat(value: Any, record: E.GameRecord) -> bool:
    return (isinstance(value, int) and not isinstance(value, bool)
            and 0 <= value < record.num_players)


def site_forfeit(site: dict[str, Any], record: E.GameRecord, over: bool) -> dict[str, Any] | None:
    """The forfeit a site record names (``{"seat", "reason"}``), checked against the replay:
    only a game whose moves stop before its end was forfeited."""
    forfeit = site.get("forfeit")
    if forfeit is None:
        return None
    seat = forfeit.get("seat") if isinstance(forfeit, dict) else None
    reason = forfeit.get("reason") if isinstance(forfeit, dict) else None
    if not _seat(seat, record) or reason not in FORFEIT_REASONS:
        raise RecordImportError("The record's forfeit is not valid: it needs the seat of a "
                                f"player and a reason ({REASONS_TEXT}).")
    if over:
        raise RecordImportError("The record names a forfeit, but its moves play the game to "
                                "its end.")
    return {"seat": seat, "reason": reason}


def _players_by_seat(site: dict[str, Any]) -> dict[int, dict[str, Any]]:
    """The site record's ``players`` by seat; an entry without a whole-number seat is left
    out (a seat of ``[1]`` was a key Python cannot hash: the import answered 500)."""
    players = site.get("players") if isinstance(site.get("players"), list) else []
    return {p["seat"]: p for p in players
            if isinstance(p, dict) and isinstance(p.get("seat"), int)
            and not isinstance(p.get("seat"), bool)}


def site_stand_ins(site: dict[str, Any], record: E.GameRecord) -> list[dict[str, Any]]:
    """The seats the computer played on for a person who had left, as a site record says
    (its ``leavers``' ``moves_before`` and its players' ``played_on_by``): ``{"seat",
    "from_ply", "name"}`` each, for the replay's names. Records that do not say give none.

    Every entry of ``leavers`` must be a person's seat (not a computer's), each seat once;
    its ``reason``, when given, one of the forfeits'; its ``at``,
    when given, an ISO 8601 time; its ``moves_before``, when given, within the moves (the
    leaver whose leaving ended the game, and older files, have none)."""
    leavers = site.get("leavers")
    if leavers is None:
        return []
    by_seat = _players_by_seat(site)
    computers = {seat for seat, p in by_seat.items() if p.get("bot_level") is not None}
    bad = RecordImportError(
        "The record's leavers are not valid: each is a person who left (the seat of a player "
        f"who is not a computer, once), with a reason ({REASONS_TEXT}), the time they left "
        "(at, ISO 8601) and the number of moves before they left (moves_before) within the "
        "record's moves.")
    if not isinstance(leavers, list):
        raise bad
    seen: set[int] = set()
    out = []
    for leaver in leavers:
        if not isinstance(leaver, dict):
            raise bad
        seat = leaver.get("seat")
        at = leaver.get("at")
        if (not _seat(seat, record) or seat in seen or seat in computers
                or ("reason" in leaver and leaver["reason"] not in FORFEIT_REASONS)
                or ("at" in leaver and at is not None
                    and (not isinstance(at, str) or len(at) > 40 or _time(at) is None))):
            raise bad
        seen.add(seat)
        if "moves_before" not in leaver:
            continue  # (the leaver whose leaving ended the game; older files)
        before = leaver["moves_before"]
        if (not isinstance(before, int) or isinstance(before, bool)
                or not 0 <= before <= len(record.moves)):
            raise bad
        player = by_seat.get(seat) or {}
        by = player.get("played_on_by")
        name = by.get("name") if isinstance(by, dict) else None
        if not isinstance(name, str) or not name.strip() or len(name) > E.PLAYER_NAME_MAX:
            name = _stand_in_name(player.get("name"), record.players[seat])
        out.append({"seat": seat, "from_ply": before, "name": name})
    return out


def _time(text: str) -> Any:
    try:
        return parse_datetime(text)
    except ValueError:
        return None


def _stand_in_name(shown: Any, username: str) -> str:
    """The computer that played on for a leaver whose file does not name it, as the site
    names it: "Computer (for Alice)"."""
    who = shown if isinstance(shown, str) and shown.strip() else username
    name = f"Computer (for {who})"
    return name if len(name) <= E.PLAYER_NAME_MAX else "Computer"
