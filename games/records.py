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
    forfeit = (game.record or {}).get("forfeit")
    if forfeit:
        # no Result header (the game did not end by the rules): the score when it stopped
        sheet = (game.record or {}).get("score_sheet") or {}
        who = forfeit.get("name") or f"seat {forfeit['seat']}"
        ending += (f"\n# {who} forfeited ({forfeit['reason']}) after "
                   f"{forfeit.get('after_hands', 0)} hand(s)")
        totals = (game.record or {}).get("totals") or sheet.get("hand_points")
        if totals:
            ending += "\n# Score at the forfeit: " + " ".join(str(t) for t in totals)
    if record is None:
        lines = [ending, f"# mode {game.mode}, seed {game.seed}"]
        lines += [f"{a['seat']} {a['action']}" for a in game.actions]
        return "\n".join(lines) + "\n"
    return ending + "\n" + record.to_text()
