"""Writes of tournaments: create, enter, withdraw, cancel, start, record results, advance.

Every function is keyword-only and runs in one transaction with the tournament row locked
(``select_for_update``), so two workers (or a worker and a request) never pair or advance one
tournament at the same time; table rows are locked after it, by ``games.services``, never
before. Tables are opened through ``games.services.table_create_for_players``; results come
back through ``games.signals.game_finished`` (``receivers``) as a Celery task keyed by the
game. Notifications (``social.notify``) and tasks go out after commit.

What comes next is always recomputed from the stored results by the format
(``tournaments.formats``, on the pure ``pairing``), so every step is safe to run twice: a
match already recorded is not recorded again, and a pairing that exists (unique
``(tournament, key)``) is not made again.

One module per concern: ``locking`` (the row lock, the version, the room), ``policy`` (who
may create and enter, the invite link), ``validation`` (a new tournament's settings),
``notices`` (after commit), ``matches`` (a match's table, result, forfeit; the formats'
desk), ``advancing`` (the format's next step, standings, the finish), ``lifecycle``
(create, enter, withdraw, cancel, start; a closing account's withdrawals), ``results`` (a
finished game), ``periodic`` (the sweep), ``schedules``. Callers use the names below:
``from leaderboards.tournaments import services; services.tournament_enter(...)``.
"""
from .. import ratings
from ..conf import min_rated_games, no_show_seconds
from ..exceptions import NotAllowed, NotFound, TournamentError
from .advancing import standings_refresh, tournament_advance, tournament_finish
from .lifecycle import (
    tournament_cancel,
    tournament_create,
    tournament_enter,
    tournament_start,
    tournament_withdraw,
    tournaments_leave,
)
from .locking import room_for
from .periodic import tournament_tick, tournaments_sweep
from .policy import can_create, entry_refusal, entry_window_refusal, invite_url, rated_games
from .results import game_result, match_result
from .schedules import schedules_run

__all__ = [
    "NotAllowed",
    "NotFound",
    "TournamentError",
    "can_create",
    "entry_refusal",
    "entry_window_refusal",
    "game_result",
    "invite_url",
    "match_result",
    "min_rated_games",
    "no_show_seconds",
    "rated_games",
    "ratings",
    "room_for",
    "schedules_run",
    "standings_refresh",
    "tournament_advance",
    "tournament_cancel",
    "tournament_create",
    "tournament_enter",
    "tournament_finish",
    "tournament_start",
    "tournament_tick",
    "tournament_withdraw",
    "tournaments_leave",
    "tournaments_sweep",
]
