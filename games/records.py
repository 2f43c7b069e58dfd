"""Exports of a stored game: JSON and text, in the engine's record format (``gin-record/1``,
see docs/engine.md), with the site's players and how the game ended."""
from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Any

from core import jsonlimits
from games import engine as E

from .bots.levels import LEVEL_TABLE, computer_name
from .models import ActionSource, Game
from .record_claims import RecordImportError as RecordImportError  # (its users' name)
from .record_claims import site_forfeit, site_stand_ins

# Records written before computers were named alike in both formats called them "bot-easy"
# in the engine record (the text form's Players header): read as "Computer (Easy)".
LEGACY_COMPUTER = re.compile("bot-(" + "|".join(level.key for level in LEVEL_TABLE) + ")")
LEVEL_BY_KEY = {level.key: level.number for level in LEVEL_TABLE}


def computer_names(names: list[str], computers: set[int] | None = None) -> list[str]:
    """``names`` with old "bot-<level>" computer names replaced by the site's computer names,
    numbered per level as at a table ("Computer (Easy)", "Computer 2 (Easy)"). When the
    computer seats are known (``computers``, a stored game), only those are renamed, so a
    person whose username looks like an old computer name keeps it.

    >>> computer_names(["ann", "bot-easy", "bot-easy", "bot-hard"])
    ['ann', 'Computer (Easy)', 'Computer 2 (Easy)', 'Computer (Hard)']
    >>> computer_names(["bot-easy", "bot-easy"], computers={1})
    ['bot-easy', 'Computer (Easy)']
    """
    count: dict[int, int] = {}
    out = []
    for seat, name in enumerate(names):
        match = LEGACY_COMPUTER.fullmatch(name)
        if match is None or (computers is not None and seat not in computers):
            out.append(name)
            continue
        level = LEVEL_BY_KEY[match.group(1)]
        count[level] = count.get(level, 0) + 1
        out.append(computer_name(level, count[level]))
    return out


def _named(record: E.GameRecord, computers: set[int] | None = None) -> E.GameRecord:
    record.players = computer_names(list(record.players), computers)
    return record


def _computer_seats(game: Game) -> set[int]:
    return {p.get("seat") for p in (game.record or {}).get("players") or []
            if isinstance(p, dict) and p.get("bot_level") is not None}


def record_json(game: Game) -> dict[str, Any]:
    """The stored record: site fields plus ``engine`` (the engine's replayable record)."""
    data = dict(game.record or {})
    if isinstance(data.get("engine"), dict) and isinstance(data["engine"].get("players"), list):
        data["engine"] = {**data["engine"], "players": computer_names(
            [str(p) for p in data["engine"]["players"]], _computer_seats(game))}
    data["game_id"] = game.pk
    data["finished_at"] = game.finished_at.isoformat().replace("+00:00", "Z")
    return data


def engine_record(game: Game) -> E.GameRecord | None:
    data = (game.record or {}).get("engine")
    if not data:
        return None
    try:
        return _named(E.GameRecord.from_dict(data), _computer_seats(game))
    except E.EngineError:
        return None


def timed_out_moves(game: Game, record: E.GameRecord) -> frozenset[int]:
    """The indices in ``record``'s moves of those the site played for a player whose time ran
    out (the game's stored sources; none when they do not line up with the record)."""
    return _moves_where(game, record, lambda seat, source: source == ActionSource.TIMEOUT)


def played_on_moves(game: Game, record: E.GameRecord) -> frozenset[int]:
    """The indices in ``record``'s moves of those the computer played in the seat of a person
    who had left the game (a game of three or four that went on: the stored players'
    ``played_on_by``)."""
    seats = {p.get("seat") for p in (game.record or {}).get("players") or []
             if isinstance(p, dict) and p.get("played_on_by")}
    if not seats:
        return frozenset()
    return _moves_where(game, record,
                        lambda seat, source: seat in seats and source == ActionSource.BOT)


# How a player left a game, after their name ("ann resigned"), by ``Ending``: the records'
# comment lines, the archive's summaries and the game page.
FORFEIT_VERB = {"resignation": "resigned", "timeout": "timed out", "abandonment": "left",
                "no_show": "did not come"}


def stand_ins(game: Game) -> list[dict[str, Any]]:
    """The seats the computer played on for a person who had left (a game of three or four
    that went on without them), so that a replay and a score sheet name the computer, not
    the person, for what followed: each ``{"seat", "name"`` (the computer's, "Computer (for
    ann)"), ``"from_ply"`` (the moves made before they left), ``"after_hands"`` (the hands
    finished before), ``"left_at"`` (when, a datetime)``}``. From the stored record alone
    (its ``leavers``, each with ``moves_before``, written when they left)."""
    data = game.record or {}
    if not data.get("leavers"):
        return []
    players = {p.get("seat"): p for p in data.get("players") or [] if isinstance(p, dict)}
    out = []
    for leaver in data.get("leavers") or []:
        if not isinstance(leaver, dict):
            continue
        seat = leaver.get("seat")
        by = (players.get(seat) or {}).get("played_on_by")
        left = _moment(leaver.get("at"))
        before = leaver.get("moves_before")
        if not isinstance(by, dict) or left is None or not isinstance(before, int):
            continue  # (the one whose leaving ended the game: nobody played on for them)
        out.append({"seat": seat, "name": by.get("name") or f"Computer (seat {seat})",
                    "from_ply": before, "after_hands": leaver.get("after_hands") or 0,
                    "left_at": left})
    return out


def _moment(text: Any) -> datetime | None:
    """An ISO 8601 time as the records write it ("...Z"), or None."""
    try:
        return datetime.fromisoformat(text) if isinstance(text, str) else None
    except ValueError:
        return None


def _moves_where(game: Game, record: E.GameRecord, test) -> frozenset[int]:
    actions = game.actions or []
    if len(actions) != len(record.moves):
        return frozenset()
    out = set()
    for i, (stored, move) in enumerate(zip(actions, record.moves, strict=True)):
        if stored.get("seat") != move.seat:
            return frozenset()
        if test(move.seat, stored.get("source")):
            out.add(i)
    return frozenset(out)


def record_text(game: Game) -> str:
    """The engine's text form, preceded by comment lines naming the game and its ending."""
    record = engine_record(game)
    ending = f"# Game {game.pk}: {game.get_ending_display().lower()}"
    if game.loser_seat is not None:
        ending += f" (seat {game.loser_seat})"
    forfeit = (game.record or {}).get("forfeit")
    if forfeit:
        # no Result header (the game did not end by the rules): the score when it stopped
        sheet = (game.record or {}).get("score_sheet") or {}
        who = forfeit.get("name") or f"seat {forfeit['seat']}"
        hands = forfeit.get("after_hands", 0)
        ending += (f"\n# {who} forfeited ({forfeit['reason']}) after "
                   f"{hands} hand{'' if hands == 1 else 's'}")
        totals = (game.record or {}).get("totals") or sheet.get("hand_points")
        if totals:
            ending += "\n# Score at the forfeit: " + " ".join(str(t) for t in totals)
    ending += "".join(_went_on_line(x) for x in (game.record or {}).get("leavers") or []
                      if not (forfeit and x.get("seat") == forfeit.get("seat")))
    if record is None:
        lines = [ending, f"# mode {game.mode}, seed {game.seed}"]
        lines += [f"{a['seat']} {a['action']}" for a in game.actions]
        return "\n".join(lines) + "\n"
    return ending + "\n" + record.to_text()


def _went_on_line(leaver: dict[str, Any]) -> str:
    """A comment line for a person who left a game of three or four that went on without
    them (the record's ``leavers``)."""
    who = leaver.get("name") or leaver.get("username") or f"seat {leaver.get('seat')}"
    hands = leaver.get("after_hands") or 0
    return (f"\n# {who} {FORFEIT_VERB.get(leaver.get('reason') or '', 'left')} after {hands} "
            f"hand{'' if hands == 1 else 's'}, placed {leaver.get('place')}; the computer "
            f"played seat {leaver.get('seat')} on")


MAX_IMPORT_MOVES = 5_000  # long Rummy games have about 2,000
MAX_IMPORT_DEPTH = 16  # a site record nests 5 levels deep


BAD_CHARACTER = ("The file holds a NUL character or half of a surrogate pair (\\ud800-\\udfff): "
                 "not a game record.")


def _short(exc: Exception, most: int = 300) -> str:
    """An error's text for the page, cut short: the engine quotes what it refused, and a
    record's field can be a megabyte long."""
    text = str(exc)
    return text if len(text) <= most else text[:most] + "…"


def _json_value(text: str) -> bool:
    """Whether ``text`` is a JSON value other than an object or a list (``null``, ``"a"``,
    ``3``): read as the text form, it was refused as a move line."""
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def record_import(text: str) -> tuple[E.GameRecord, list[str]]:
    """``record_import_with_forfeit`` without the forfeit: the record and its names."""
    record, names, _forfeit, _stand_ins = record_import_with_forfeit(text)
    return record, names


def own_rules_text(record: E.GameRecord | None) -> str:
    """An imported game's rules where they are not its mode's own, as a page says them
    ("knocking on, knock limit 5"); "" for the mode's own rules, whatever the target. An
    import may change its mode's settings (docs/records.md): a Straight Gin with knocking on
    was shown as plain Straight Gin."""
    if record is None:
        return ""
    base = E.get_mode(record.mode).to_dict()

    def said(value: Any) -> str:
        if isinstance(value, bool):
            return "on" if value else "off"
        return json.dumps(value) if isinstance(value, list | dict) else str(value)

    # (the target is a table's choice, not a rule of the game)
    return ", ".join(f"{key.replace('_', ' ')} {said(value)}"
                     for key, value in record.settings.items()
                     if key not in ("name", "target", "targets") and base.get(key) != value)


def went_on_text(stand_ins: list[dict[str, Any]], names: list[str]) -> str:
    """"after move 6, ann left and Computer (for ann) played the seat on" for each person
    who left a game that went on (``record_claims.site_stand_ins``), joined; "" for none."""
    return "; ".join(
        f"after move {s['from_ply']}, "
        f"{names[s['seat']] if 0 <= s['seat'] < len(names) else 'seat ' + str(s['seat'] + 1)}"
        f" left and {s['name']} played the seat on"
        for s in stand_ins)


def forfeit_text(forfeit: dict[str, Any] | None, names: list[str]) -> str:
    """"ann resigned" for a record's ``forfeit`` (``record_import_with_forfeit``), or ""."""
    if not forfeit:
        return ""
    seat = forfeit["seat"]
    who = names[seat] if 0 <= seat < len(names) else f"Seat {seat + 1}"
    return f"{who} {FORFEIT_VERB.get(forfeit['reason'], 'left')}"


def record_import_with_forfeit(
        text: str
) -> tuple[E.GameRecord, list[str], dict[str, Any] | None, list[dict[str, Any]]]:
    """Read an uploaded record and check it by replaying it through the engine.

    Accepts the site's JSON (``ginsite-game/1``, with the engine record inside), the
    engine's JSON (``gin-record/1``) and the engine's text form. Every hand result and the
    final result written in the file must equal the replay's, so an edited record is refused.
    Returns the engine record, the players' display names, for the site's JSON of a
    forfeited game who forfeited and why (``{"seat", "reason"}``; else None: the engine's
    forms do not say), and the seats the computer played on for a person who had left
    (``record_claims.site_stand_ins``; [] unless the site's JSON says). Stores nothing.
    """
    text = text.strip()
    if not text:
        raise RecordImportError("The file is empty.")
    names = None
    site = None
    try:
        if text.startswith(("{", "[")):  # JSON (a list is JSON too, but no record)
            data = jsonlimits.loads(text, max_depth=MAX_IMPORT_DEPTH)
            if not isinstance(data, dict):
                raise RecordImportError("The JSON is not a game record.")
            if data.get("format") == "ginsite-game/1":
                site = data
                if not isinstance(data.get("engine"), dict):
                    raise RecordImportError("This record holds no replayable moves.")
                players = data.get("players") or []
                if not isinstance(players, list):
                    raise RecordImportError("The record's players are not a list.")
                # the site's names, read as the engine reads its own (text, not too long)
                names = E.player_names([
                    (p.get("name") or p.get("username") or f"Seat {i + 1}")
                    if isinstance(p, dict) else p for i, p in enumerate(players)])
                data = data["engine"]
            record = E.GameRecord.from_dict(data)
        else:
            if _json_value(text):
                raise RecordImportError("The JSON is not a game record.")
            record = E.GameRecord.from_text(text)
            # its headers are JSON too, read by the engine (the JSON form was checked above)
            if "\x00" in text or jsonlimits.has_bad_character(record.to_dict()):
                raise RecordImportError(BAD_CHARACTER)
    except RecordImportError:
        raise
    except json.JSONDecodeError as exc:
        raise RecordImportError(f"The file is not valid JSON (line {exc.lineno}).") from None
    except jsonlimits.JSONBadCharacter:
        raise RecordImportError(BAD_CHARACTER) from None
    except jsonlimits.JSONTooDeep:
        raise RecordImportError(f"The JSON is nested more than {MAX_IMPORT_DEPTH} levels "
                                "deep: not a game record.") from None
    except E.EngineError as exc:  # (a RecordError is one)
        raise RecordImportError(f"The record is not valid: {_short(exc)}") from None
    except ValueError as exc:  # (after the engine's errors, which are ValueErrors too)
        if "digits" in str(exc):  # a JSON integer of over 4,300 digits, Python's limit
            raise RecordImportError("The file holds a number far too long for a game "
                                    "record.") from None
        raise RecordImportError(f"The record is not valid: {_short(exc)}") from None
    if len(record.moves) > MAX_IMPORT_MOVES:
        raise RecordImportError(f"The record has more than {MAX_IMPORT_MOVES} moves.")
    try:
        final = E.replay(record, verify=True)
    except E.EngineError as exc:  # (a RecordError is one)
        raise RecordImportError(f"The record does not replay: {_short(exc)}") from None
    if site is not None:
        result = final.result.to_dict() if final.result else None
        if site.get("result") is not None and site.get("result") != result:
            raise RecordImportError("The record's result differs from the replay of its moves.")
        totals = list(final.result.totals) if final.result else list(final.scores)
        if site.get("totals") is not None and site["totals"] != totals:
            raise RecordImportError("The record's totals differ from the replay of its moves.")
    forfeit = site_forfeit(site, record, final.result is not None) if site else None
    played_on = site_stand_ins(site, record) if site else []
    computers = None
    if site is not None:  # the site's players say which seats were computers
        computers = {i for i, p in enumerate(site.get("players") or [])
                     if isinstance(p, dict) and p.get("bot_level") is not None}
    _named(record, computers)
    if names is None or len(names) != record.num_players:
        names = list(record.players)
    # a seat without a name is called by its number (a page read "Classic Gin, , , 109 moves")
    names = [n if n.strip() else f"Seat {i + 1}" for i, n in enumerate(names)]
    return record, names, forfeit, played_on
