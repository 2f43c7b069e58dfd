"""The beat sweep's work: due starts, missed results, no-shows, arena waves and ends."""
from __future__ import annotations

import logging
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from games import selectors as games_selectors

from .. import conf
from ..formats import format_for
from ..models import Entry, Match, MatchEnding, MatchStatus, OutReason, Status, Tournament
from .advancing import tournament_advance
from .lifecycle import tournament_start
from .locking import tournament_lock, version_bump
from .matches import match_forfeit, match_record_game, matches_waiting_open
from .schedules import schedules_run

log = logging.getLogger(__name__)


def tournament_tick(*, tournament_id: int) -> dict[str, int]:
    """Record games whose result was missed, open waiting matches whose players are free,
    forfeit no-shows, pair an arena wave, close an arena at its end (safe to repeat)."""
    done = {"no_shows": 0, "recorded": 0, "waiting": 0}
    with transaction.atomic():
        t = tournament_lock(tournament_id)
        if t.status != Status.RUNNING:
            return done
        fmt = format_for(t)
        before = (Match.objects.filter(tournament=t).count(), t.status)
        # a waiting match whose players are free (the game that kept one ended, its result
        # task lost or not yet run)
        done["waiting"] = matches_waiting_open(t)  # (opened, or decided)
        # Games that ended without their result task having run (a lost task): record now.
        for match in Match.objects.filter(tournament=t, status=MatchStatus.PLAYING,
                                          table__game__isnull=False):
            done["recorded"] += match_record_game(t, match)
        cutoff = timezone.now() - timedelta(seconds=conf.no_show_seconds(t.seconds_per_turn))
        for match in Match.objects.filter(tournament=t, status=MatchStatus.PLAYING,
                                          created_at__lt=cutoff, table__isnull=False):
            absent = absent_players(match)
            if not absent:
                continue
            # Both absent: player b forfeits.
            loser = absent[0]
            if len(absent) == 2 and match.player_b_id is not None:
                loser = match.player_b_id
            match_forfeit(t, match, loser_id=loser, ending=MatchEnding.NO_SHOW)
            done["no_shows"] += 1
            if fmt.withdraws_absent:
                # Nobody should wait for them again: an absent arena player stops being paired.
                Entry.objects.filter(tournament=t, user_id__in=absent).update(
                    withdrawn=True, out_reason=OutReason.ABSENT)
        if done["no_shows"] or done["recorded"] or fmt.paired_by_clock:
            tournament_advance(t)  # (brackets and rounds move on with each result)
        if done["no_shows"] or done["recorded"] or done["waiting"] or (
            Match.objects.filter(tournament=t).count(), t.status
        ) != before:
            version_bump(t)
    return done


def absent_players(match: Match) -> list[int]:
    """The match's players who neither opened their table nor moved."""
    if match.table_id is None:  # not seated yet: nobody can be absent
        return []
    return [uid for uid, came in games_selectors.players_came(match.table_id).items()
            if not came]


def tournaments_sweep() -> dict[str, int]:
    """Periodic: start the tournaments that are due (a missed or lost start task), tick the
    running ones, create the scheduled editions."""
    now = timezone.now()
    done = {"started": 0, "ticked": 0, "created": schedules_run()}
    for tid in Tournament.objects.filter(status=Status.SCHEDULED, starts_at__lte=now) \
            .values_list("pk", flat=True):
        try:
            done["started"] += tournament_start(tournament_id=tid)
        except Exception:
            log.exception("start of tournament %s failed", tid)
    for tid in Tournament.objects.filter(status=Status.RUNNING).values_list("pk", flat=True):
        try:
            tournament_tick(tournament_id=tid)
            done["ticked"] += 1
        except Exception:
            log.exception("tick of tournament %s failed", tid)
    return done
