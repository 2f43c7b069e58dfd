"""A game at a tournament table ended: record its match and build what comes next."""
from __future__ import annotations

from django.db import transaction

from games.models import Game

from ..models import Match, Status
from .advancing import standings_refresh, tournament_advance
from .locking import tournament_lock, version_bump
from .matches import match_record_game


def match_result(*, table_id: int) -> bool:
    """Record the match played at ``table_id`` and build what comes next. Does nothing for
    other tables or a match already recorded (safe to run twice)."""
    match_id = Match.objects.filter(table_id=table_id).values_list("pk", flat=True).first()
    if match_id is None:
        return False
    with transaction.atomic():
        tid = Match.objects.filter(pk=match_id).values_list("tournament_id", flat=True).first()
        t = tournament_lock(tid)
        match = Match.objects.select_for_update().get(pk=match_id)
        if not match_record_game(t, match):
            return False
        if t.status == Status.RUNNING:
            tournament_advance(t)
        elif t.status == Status.CANCELLED:
            # a game left to finish after the cancel counts in the standings, as the bracket
            # and the rounds show it (they read the matches)
            standings_refresh(t)
        version_bump(t)
    return True


def game_result(*, game_id: int) -> bool:
    """``match_result`` for the table of the finished game ``game_id`` (the receiver's task
    is keyed by the game); False for a game at no tournament table."""
    table_id = Game.objects.filter(pk=game_id).values_list("table_id", flat=True).first()
    if table_id is None:
        return False
    return match_result(table_id=table_id)
