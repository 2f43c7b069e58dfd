"""A table against the computer that runs in the browser (docs/offline.md).

Pure Python: it imports the engine, the bots and the standard library only, so that
``manage.py build_offline_engine`` can ship it with them to Pyodide. The browser's web worker
(``static/js/offline/worker.js``) calls the functions below with JSON text and gets JSON text
back; the page renders the frames with the same table code as online play
(``static/js/table/``), so the frames here have the shape of ``games/frames.py``'s
(docs/protocol.md): ``table``, ``seats``, ``you``, ``clock``, ``view`` (the engine's
``view_for``), ``events``, ``last``.

A saved game (``doc``) is what IndexedDB keeps: the settings, the table's version, how it
ended and the engine's own serialised state (``GameState.to_dict()``, with its moves, so
that a finished game becomes a replayable record for the upload).
"""
from __future__ import annotations

import json
import random
from typing import Any

from games import engine as E
from games.bots import get_bot
from games.bots.levels import (
    HINT_LEVEL,
    LEVEL_BY_NUMBER,
    LEVEL_KEYS,
    computer_name,
    computer_short_name,
)

MODE_NAMES = {
    "classic": "Classic Gin", "straight": "Straight Gin", "oklahoma": "Oklahoma Gin",
    "hollywood": "Hollywood Gin", "rummy": "Basic Rummy",
}
TARGET_RANGE = (50, 500)
PLAYER = 0  # the person always sits in seat 0; the computers fill the others
RECORD_FORMAT = "ginsite-game/1"


class LocalError(ValueError):
    """Bad settings or a move that is not legal now: the message is for people."""


def _settings(config: dict[str, Any]) -> tuple[str, int, int, int | None]:
    mode = config.get("mode")
    if mode not in MODE_NAMES:
        raise LocalError("Unknown mode.")
    level = config.get("level")
    if level not in LEVEL_BY_NUMBER:
        raise LocalError("The level must be 1 to 4.")
    computers = config.get("computers") or 1
    if not isinstance(computers, int) or not 1 <= computers <= (3 if mode == "rummy" else 1):
        raise LocalError("Basic Rummy takes 1 to 3 computers; the gin modes one.")
    target = config.get("target") or None
    if target is not None and (not isinstance(target, int)
                               or not TARGET_RANGE[0] <= target <= TARGET_RANGE[1]):
        raise LocalError(f"The target must be {TARGET_RANGE[0]} to {TARGET_RANGE[1]} points.")
    return mode, level, computers, target


def target_settings(mode: str, num_players: int, target: int | None) -> dict[str, Any]:
    """The settings that give ``mode`` the game's ``target`` (none when it is the mode's own);
    every other rule is the mode's."""
    if not target or target == E.get_mode(mode).target_for(num_players):
        return {}
    return {"targets": ((num_players, target),)} if mode == "rummy" else {"target": target}


def new_state(mode: str, seed: int, num_players: int, target: int | None) -> E.GameState:
    """A fresh game; ``target`` replaces the mode's own target when it differs (online
    tables start theirs here too: ``games.states.new_state``)."""
    settings = target_settings(mode, num_players, target)
    return E.new_game(mode, seed, num_players, settings=settings or None)


def new_game(config: dict[str, Any]) -> dict[str, Any]:
    """A saved game from the offline page's choices: ``id`` (the client's UUID), ``mode``,
    ``level`` (1-4), ``computers`` (rummy 1-3), optional ``target``, ``seed``, ``name``
    (the person's name) and ``now`` (ms)."""
    mode, level, computers, target = _settings(config)
    seed = config.get("seed")
    if not isinstance(seed, int) or seed < 0:
        seed = random.SystemRandom().randrange(2**31)
    state = new_state(mode, seed, computers + 1, target)
    now = int(config.get("now") or 0)
    return {
        "id": str(config.get("id") or ""), "mode": mode, "level": level,
        "computers": computers, "target": state.target, "seed": seed,
        "name": str(config.get("name") or "You")[:60], "version": 1,
        "status": "playing", "ending": None, "loser_seat": None,
        "started_at": now, "finished_at": None, "timestamps": [],
        "state": state.to_dict(),
    }


def _state(doc: dict[str, Any]) -> E.GameState:
    return E.GameState.from_dict(doc["state"])


def _seats(doc: dict[str, Any]) -> list[dict[str, Any]]:
    count = doc["computers"]
    you = doc.get("name") or "You"
    seats = [{"index": PLAYER, "kind": "user", "name": you, "short_name": you,
              "username": None, "bot_level": None, "is_bot": False, "connected": True,
              "gone": False, "timeouts": 0, "left": None}]
    for i in range(1, count + 1):
        # (the short label, as online: a phone's seat boxes for three or four showed
        # "Compute…" three times)
        number = i if count > 1 else 1
        seats.append({"index": i, "kind": "bot", "name": computer_name(doc["level"], number),
                      "short_name": computer_short_name(doc["level"], number),
                      "username": None, "bot_level": doc["level"], "is_bot": False,
                      "connected": True, "gone": False, "timeouts": 0, "left": None})
    return seats


def placements(totals: list[int], loser_seat: int | None,
               left_places: dict[int, int] | None = None) -> list[int]:
    """1-based places: the forfeiting seat last, the others by total (ties share). The one
    rule of places for every finished game, online (``services.endings``) and offline.

    ``left_places``: seat → the place fixed for a person who left a game of three or four
    that went on without them (the last place still free when they left, so an earlier
    leaver is below a later one); the other seats share the places above them."""
    left_places = left_places or {}
    order = sorted((i for i in range(len(totals)) if i not in left_places),
                   key=lambda i: (i == loser_seat, -totals[i]))
    places = [0] * len(totals)
    for rank, i in enumerate(order):
        prev = order[rank - 1] if rank else None
        same = (prev is not None and totals[prev] == totals[i]
                and (prev == loser_seat) == (i == loser_seat))
        places[i] = places[prev] if same else rank + 1
    for i, place in left_places.items():
        places[i] = place
    return places


def standing(totals: list[int], loser_seat: int | None, *, by_rules: bool,
             rules_winner: int | None = None,
             left_places: dict[int, int] | None = None) -> tuple[list[int], int | None]:
    """(places, winner seat or None): the engine's winner when the game ended by the rules
    (``by_rules``) unless that seat's person had left (a computer played it on: the winner
    is then the one seat first among those who stayed), else the one seat in first place
    (None when first place is shared)."""
    places = placements(totals, loser_seat, left_places)
    if by_rules and rules_winner not in (left_places or {}):
        return places, rules_winner
    return places, places.index(1) if places.count(1) == 1 else None


def _finish(doc: dict[str, Any], state: E.GameState) -> dict[str, Any] | None:
    if doc["status"] != "finished":
        return None
    totals = list(state.result.totals) if state.result else list(state.scores)
    by_rules = state.result is not None and doc["ending"] == "normal"
    places, winner = standing(totals, doc["loser_seat"], by_rules=by_rules,
                              rules_winner=state.result.winner if by_rules else None)
    return {"game_id": None, "url": None, "ending": doc["ending"], "winner_seat": winner,
            "loser_seat": doc["loser_seat"], "scores": totals, "places": places,
            "seed": doc["seed"], "offline": True}


def frame(doc: dict[str, Any], *, kind: str = "snapshot", state: E.GameState | None = None,
          events: tuple[E.Event, ...] = (), last: dict[str, Any] | None = None,
          ) -> dict[str, Any]:
    """The person's frame of the game as it stands (docs/protocol.md)."""
    state = state or _state(doc)
    seats = _seats(doc)
    mode = doc["mode"]
    table = {
        "id": None, "mode": mode, "mode_name": MODE_NAMES[mode],
        "room": {"slug": "offline", "name": "Offline"},
        "seat_count": len(seats), "target": doc["target"], "rated": False,
        "seconds_per_turn": 0, "private": True, "status": doc["status"],
        "created_by": None, "finish": _finish(doc, state), "offline": True,
        "rematch": {"offers": [], "table_id": None, "url": None},
    }
    view = E.view_for(state, PLAYER)
    if doc["status"] == "finished":
        view.setdefault("seed", doc["seed"])
        view["legal_actions"] = []
    out = {"type": kind, "version": doc["version"], "table": table, "seats": seats,
           "you": {"role": "player", "seat": PLAYER, "username": None, "can_claim": False,
                   "can_sit": False, "can_chat": False,
                   "can_hint": doc["status"] == "playing", "left": None},
           "clock": None, "view": view}
    if kind == "state":
        out["events"] = [e.to_dict() for e in events if e.visible_to(PLAYER)]
        if last is not None:
            action = str(last.get("action", ""))
            shown = E.action_seen_by(state, action, last.get("seat"), PLAYER)
            out["last"] = last if shown == action else {**last, "action": shown}
    else:
        out["chat"] = []
        out["ratings"] = []  # no ratings offline: the empty list of docs/protocol.md
    return out


def _play(doc: dict[str, Any], seat: int, action: str, source: str, now: int
          ) -> dict[str, Any]:
    if doc["status"] != "playing":
        raise LocalError("The game is over.")
    state = _state(doc)
    if state.to_act != seat:
        raise LocalError("It is not this seat's turn.")
    try:
        state, events = E.apply(state, action, seat)
    except E.EngineError as exc:
        raise LocalError(f"That move is not possible: {exc}") from None
    doc = {**doc, "version": doc["version"] + 1, "state": state.to_dict(),
           "timestamps": [*doc.get("timestamps", []), now]}
    if state.is_over:
        doc.update(status="finished", ending="normal", finished_at=now)
    return {"doc": doc, "frame": frame(doc, kind="state", state=state, events=events,
                                       last={"seat": seat, "action": action,
                                             "source": source})}


def act(doc: dict[str, Any], action: str, now: int = 0) -> dict[str, Any]:
    """The person's move (one of the view's legal actions)."""
    if not isinstance(action, str) or not action or len(action) > 200:
        raise LocalError("That move is not possible.")
    return _play(doc, PLAYER, action, "player", now)


def bot_to_act(doc: dict[str, Any]) -> int | None:
    """The computer seat whose move is due, or None (the person's turn, or the end)."""
    if doc["status"] != "playing":
        return None
    seat = _state(doc).to_act
    return seat if seat is not None and seat != PLAYER else None


def computer_move(state: E.GameState, level: int, seed: int) -> str:
    """The computer's move in ``state``, as ``games.computer.bot_action`` chooses it online:
    its level's bot, seeded by the game's seed and the move number, shown the seat's view
    only. Deterministic, so the server can check an uploaded game's computer moves."""
    legal = E.legal_actions(state)
    bot = get_bot(LEVEL_KEYS[level], seed * 1009 + state.actions_played)
    text = str(bot.choose(E.view_for(state, state.to_act), legal))
    if text not in {str(a) for a in legal}:  # a bot bug must never stall the game
        text = str(legal[0])
    return text


def hint(doc: dict[str, Any]) -> dict[str, Any]:
    """The ``hint`` frame for the person's turn: the Hard computer's move in their place,
    from their seat's view only (as ``games.services.hints`` answers it online)."""
    state = _state(doc)
    if doc["status"] != "playing" or state.to_act != PLAYER:
        raise LocalError("It is not your turn.")
    action = computer_move(state, HINT_LEVEL, doc["seed"] + 1)
    return {"type": "hint", "id": None, "version": doc["version"], "action": action}


def bot_action(doc: dict[str, Any]) -> tuple[int, str]:
    """The seat to act and its computer's move."""
    state = _state(doc)
    return state.to_act, computer_move(state, doc["level"], doc["seed"])


def bot(doc: dict[str, Any], now: int = 0) -> dict[str, Any]:
    """Play the computer's move that is due."""
    if bot_to_act(doc) is None:
        raise LocalError("No computer is to move.")
    seat, text = bot_action(doc)
    return _play(doc, seat, text, "bot", now)


def resign(doc: dict[str, Any], now: int = 0) -> dict[str, Any]:
    """The person gives up: the game ends (a loss), as a resignation does online."""
    if doc["status"] != "playing":
        raise LocalError("The game is over.")
    doc = {**doc, "version": doc["version"] + 1, "status": "finished",
           "ending": "resignation", "loser_seat": PLAYER, "finished_at": now}
    state = _state(doc)
    return {"doc": doc, "frame": frame(doc, kind="state", state=state,
                                       last={"seat": PLAYER, "action": "resign",
                                             "source": "player"})}


def record(doc: dict[str, Any]) -> dict[str, Any]:
    """A finished game as the site's record (``ginsite-game/1``, docs/records.md) with the
    engine's replayable record inside: what the upload sends."""
    if doc["status"] != "finished":
        raise LocalError("The game is not over.")
    state = _state(doc)
    seats = _seats(doc)
    names = [s["name"] for s in seats]
    stamps = list(doc.get("timestamps") or [])
    if len(stamps) != len(state.moves):
        stamps = [0] * len(state.moves)
    engine = E.GameRecord.from_state(state, players=names, timestamps=stamps).to_dict()
    fin = _finish(doc, state) or {}
    return {
        "format": RECORD_FORMAT, "offline_id": doc["id"], "mode": doc["mode"],
        "settings": state.mode.to_dict(), "num_players": len(seats), "seed": doc["seed"],
        "players": [{"seat": s["index"], "name": s["name"], "username": None,
                     "bot_level": s["bot_level"]} for s in seats],
        "ending": doc["ending"], "loser_seat": doc["loser_seat"],
        "winner_seat": fin.get("winner_seat"),
        "result": state.result.to_dict() if state.result else None,
        "totals": fin.get("scores"), "started_at": doc["started_at"],
        "finished_at": doc["finished_at"], "engine": engine,
    }


# ------------------------------------------------------------------ the worker's entry


def handle(request_json: str) -> str:
    """One request from the web worker: ``{"op": ..., ...}`` → ``{"ok": true, ...}`` or
    ``{"ok": false, "error": "..."}``. Ops: ``new`` (config), ``frame`` (doc), ``act``
    (doc, action), ``bot`` (doc), ``resign`` (doc), ``record`` (doc), ``hint`` (doc)."""
    try:
        req = json.loads(request_json)
        op = req.get("op")
        now = int(req.get("now") or 0)
        if op == "new":
            doc = new_game({**req.get("config", {}), "now": now})
            out = {"doc": doc, "frame": frame(doc)}
        elif op == "frame":
            out = {"frame": frame(req["doc"])}
        elif op == "act":
            out = act(req["doc"], req.get("action"), now)
        elif op == "bot":
            out = bot(req["doc"], now)
        elif op == "resign":
            out = resign(req["doc"], now)
        elif op == "record":
            out = {"record": record(req["doc"])}
        elif op == "hint":
            out = {"hint": hint(req["doc"])}
        else:
            raise LocalError("Unknown request.")
        doc = out.get("doc") or req.get("doc")
        if isinstance(doc, dict) and "state" in doc:
            out["bot_seat"] = bot_to_act(doc)
        return json.dumps({"ok": True, **out})
    except LocalError as exc:
        return json.dumps({"ok": False, "error": str(exc)})
    except (KeyError, TypeError, ValueError, E.EngineError) as exc:
        return json.dumps({"ok": False, "error": f"The saved game cannot be read: {exc}"})
