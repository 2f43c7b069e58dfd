"""A finished tournament's finals are analysed by the site (docs/analysis.md, "On the site").

The finals are the games that decided it: for single and double elimination, the last match
recorded (the final, or the grand final and its reset); for Swiss and round robin, every
game of the last round; for an arena, the last game to finish; never a game one of its
players never came to (``Ending.NO_SHOW``). After the commit each is
handed to ``games.services.analysis_request_automatic`` (the games app's one way to ask for
an analysis; it queues the idempotent task ``games.analyse`` and re-uses an analysis
already stored), so the players find the analysis on the game page without asking.
"""
from __future__ import annotations

import logging

from django.db import transaction

from games import services as games_services
from games.models import Ending, Game

from ..models import Format, Match, Tournament

log = logging.getLogger(__name__)

# At most this many games of one tournament are analysed automatically.
FINALS_MAX = 8


def final_game_ids(t: Tournament) -> list[int]:
    """The ids of the games that decided ``t`` (see the module's docstring)."""
    played = Match.objects.filter(tournament=t, table__game__isnull=False)
    if t.format in (Format.SWISS, Format.ROBIN):
        last = played.order_by("-round").values_list("round", flat=True).first()
        played = played.filter(round=last) if last is not None else played.none()
    else:
        played = played.order_by("-finished_at", "-pk")[:1]
    table_ids = [m.table_id for m in played[:FINALS_MAX]]
    # a game one of its players never came to has nothing to judge (it read "0 inaccuracies")
    return list(Game.objects.filter(table_id__in=table_ids).exclude(ending=Ending.NO_SHOW)
                .order_by("pk").values_list("pk", flat=True))


def finals_analyse_after_commit(t: Tournament) -> None:
    """Ask for the analysis of ``t``'s finals once the current transaction commits. Best
    effort: a failure is logged, never raised into the tournament's end."""
    game_ids = final_game_ids(t)

    def ask() -> None:
        for game_id in game_ids:
            try:
                games_services.analysis_request_automatic(game_id=game_id)
            except Exception:
                log.exception("the analysis of the final game %s was not queued", game_id)

    if game_ids:
        transaction.on_commit(ask)
