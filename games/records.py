"""Exports of a stored game: JSON and text, in the engine's record format (``gin-record/1``,
see docs/engine.md), with the site's players and how the game ended."""
from __future__ import annotations

from typing import Any

from games import engine as E

from .models import Game


def record_json(game: Game) -> dict[str, Any]:
    """The stored record: site fields plus ``engine`` (the engine's replayable record)."""
    data = dict(game.record or {})
    data["game_id"] = game.pk
    data["finished_at"] = game.finished_at.isoformat().replace("+00:00", "Z")
    return data


def engine_record(game: Game) -> E.GameRecord | None:
    data = (game.record or {}).get("engine")
    if not data:
        return None
    try:
        return E.GameRecord.from_dict(data)
    except E.EngineError:
        return None


def record_text(game: Game) -> str:
    """The engine's text form, preceded by comment lines naming the game and its ending."""
    record = engine_record(game)
    ending = f"# Game {game.pk}: {game.get_ending_display().lower()}"
    if game.loser_seat is not None:
        ending += f" (seat {game.loser_seat})"
    if record is None:
        lines = [ending, f"# mode {game.mode}, seed {game.seed}"]
        lines += [f"{a['seat']} {a['action']}" for a in game.actions]
        return "\n".join(lines) + "\n"
    return ending + "\n" + record.to_text()
