"""Writes of ratings, by concern: ``rating`` (rating finished games, the catch-up),
``playbans``, ``boards`` (leaderboard snapshots), ``rebuild`` (``manage.py
ratings_rebuild``), ``bulk`` (COPY and ANALYZE). Callers use the names below:
``from leaderboards.ratings import services; services.game_rate(...)``.
"""
from .boards import leaderboard_compute, leaderboards_compute_all, leaderboards_leave
from .playbans import STRIKE_ENDINGS, playban_minutes, playban_record
from .rating import game_rate, ledger_lock, ratings_catch_up
from .rebuild import ratings_rebuild

__all__ = [
    "STRIKE_ENDINGS",
    "game_rate",
    "leaderboard_compute",
    "leaderboards_compute_all",
    "leaderboards_leave",
    "ledger_lock",
    "playban_minutes",
    "playban_record",
    "ratings_catch_up",
    "ratings_rebuild",
]
