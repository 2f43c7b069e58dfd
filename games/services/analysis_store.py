"""Storing a finished analysis (``services.analysis`` runs it): once per game, or imported
record, and analyser version. A game's analysis also gets one ``AnalysisSeat`` row per seat,
its summary in columns for the statistics; an imported record's gets none."""
from __future__ import annotations

from typing import Any

from django.db.models import prefetch_related_objects

from games.bots.analysis import GameAnalysis

from ..models import Analysis, AnalysisSeat, Game, ImportedRecord
from ..selectors.archive import game_private


def store_game_analysis(game: Game, result: GameAnalysis, *, seed: int, seconds: float) -> bool:
    analysis, created = Analysis.objects.get_or_create(
        game=game, version=result.version,
        defaults={"data": result.to_json(), "seed": seed, "seconds": round(seconds, 3)},
    )
    if not created:
        return False
    prefetch_related_objects([game], "players")  # read once, by game_private and here
    players = {p.seat: p for p in game.players.all()}
    private = game_private(game)
    rows = []
    for s in result.summaries:
        p = players.get(s.seat)
        counts: dict[str, Any] = dict(s.counts)
        rows.append(AnalysisSeat(
            analysis=analysis, game=game, version=result.version, seat=s.seat,
            user_id=p.user_id if p else None, bot_level=p.bot_level if p else None,
            mode=game.mode, private=private, finished_at=game.finished_at,
            decisions=s.decisions, accuracy=round(s.accuracy, 2),
            total_loss=round(s.total_loss, 3),
            best=int(counts.get("best", 0)), good=int(counts.get("good", 0)),
            inaccuracies=int(counts.get("inaccuracy", 0)),
            mistakes=int(counts.get("mistake", 0)), blunders=int(counts.get("blunder", 0)),
        ))
    AnalysisSeat.objects.bulk_create(rows)
    return True


def store_imported_analysis(imported: ImportedRecord, result: GameAnalysis, *, seed: int,
                    seconds: float) -> bool:
    """An imported record's analysis: no ``AnalysisSeat`` rows, since its seats are names
    in a file, not accounts; it counts in nobody's statistics."""
    _, created = Analysis.objects.get_or_create(
        imported=imported, version=result.version,
        defaults={"data": result.to_json(), "seed": seed, "seconds": round(seconds, 3)},
    )
    return created
