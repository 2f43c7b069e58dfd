"""A game at a tournament table ended: record its match and build what comes next."""
from __future__ import annotations

from collections.abc import Iterable

from django.db import transaction
from django.db.models import Q

from games.models import Game, GamePlayer

from ..models import Match, MatchStatus, Status
from .advancing import standings_refresh, tournament_advance
from .locking import tournament_lock, version_bump
from .matches import match_record_game, matches_waiting_open


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
    is keyed by the game), after the waiting matches of its players open (the game kept them
    waiting); False for a game at no tournament table."""
    table_id = Game.objects.filter(pk=game_id).values_list("table_id", flat=True).first()
    if table_id is None:
        return False
    # the matches that waited for this game first: paired before anything its result opens
    # (a player going through one bracket kept the other tournament's match waiting)
    waiting_open(GamePlayer.objects.filter(game_id=game_id, user__isnull=False)
                 .values_list("user_id", flat=True))
    return match_result(table_id=table_id)


def waiting_open(user_ids: Iterable[int]) -> int:
    """Open the waiting matches of ``user_ids`` whose players are both free now, each
    tournament in a transaction of its own, the one paired first first; how many opened."""
    opened = 0
    ids = list(user_ids)
    for tid in dict.fromkeys(
        Match.objects.filter(Q(player_a_id__in=ids) | Q(player_b_id__in=ids),
                             status=MatchStatus.WAITING, tournament__status=Status.RUNNING)
        .order_by("pk").values_list("tournament_id", flat=True)
    ):
        with transaction.atomic():
            t = tournament_lock(tid)
            if t.status != Status.RUNNING:
                continue
            n = matches_waiting_open(t)
            if n:
                tournament_advance(t)
                version_bump(t)
            opened += n
    return opened
