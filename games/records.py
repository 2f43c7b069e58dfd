"""Exports of a stored game: JSON and text (the engine's record format once it has one)."""
from __future__ import annotations

from typing import Any

from .models import Game


def _engine_record(game: Game):
    """The engine's ``GameRecord`` for this game, or None if the engine has no records."""
    try:
        from games.engine import GameRecord  # type: ignore[attr-defined]
    except ImportError:
        return None
    try:
        return GameRecord.from_json(game.record.get("engine"))
    except Exception:
        return None


def record_json(game: Game) -> dict[str, Any]:
    data = dict(game.record or {})
    data["game_id"] = game.pk
    data["finished_at"] = game.finished_at.isoformat().replace("+00:00", "Z")
    return data


def record_text(game: Game) -> str:
    record = _engine_record(game)
    if record is not None:
        return record.to_text()
    r = game.record or {}
    players = r.get("players", [])
    lines = [
        f'[Game "{game.pk}"]',
        f'[Mode "{game.mode}"]',
        f'[Players "{game.num_players}"]',
        f'[Target "{game.target}"]',
        f'[Seed "{game.seed}"]',
    ]
    for p in players:
        who = p.get("username") or f"bot:{p.get('bot_level')}"
        lines.append(f'[Seat{p["seat"]} "{who}"]')
    lines.append(f'[Ending "{game.ending}"]')
    result = r.get("result") or {}
    if result.get("totals") is not None:
        lines.append(f'[Totals "{" ".join(str(t) for t in result["totals"])}"]')
    lines.append("")
    for a in r.get("actions", []):
        lines.append(f'{a["seat"]} {a["action"]}')
    lines.append("")
    return "\n".join(lines)
