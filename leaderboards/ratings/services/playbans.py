"""Playbans: a rated game lost by a timeout or by leaving is a strike; strikes within the
window bar the player from rated tables by the ladder (``conf``)."""
from __future__ import annotations

from datetime import timedelta

from django.db import transaction

from games import selectors as games_selectors
from games.models import Ending, Game, GamePlayer

from ...models import Playban, PlaybanStrike
from .. import conf

STRIKE_ENDINGS = (Ending.TIMEOUT, Ending.ABANDONMENT)


def playban_minutes(strikes: int) -> int:
    """The length of the bar given by the ``strikes``-th strike in the window (0: a warning)."""
    ladder = conf.playban_ladder()
    if strikes < min(ladder):
        return 0
    return ladder[min(strikes, max(ladder))]


def playban_record(*, game_id: int) -> Playban | None:
    """A rated game ended because a player timed out or left: a strike for them, and a bar
    from rated tables by the ladder. Idempotent (one strike per game and user). A player the
    site seated who never came to the table (a tournament's no-show, who loses the match for
    it) gets none: the strike is for leaving a game, and in a bracket one absence became two
    strikes and a bar."""
    game = Game.objects.filter(pk=game_id).first()
    if (game is None or not game.rated or game.ending not in STRIKE_ENDINGS
            or game.loser_seat is None):
        return None
    player = GamePlayer.objects.filter(game=game, seat=game.loser_seat).first()
    if player is None or player.user_id is None:
        return None
    if game.table_id is not None and not games_selectors.players_came(game.table_id).get(
            player.user_id, True):
        return None
    with transaction.atomic():
        strike, created = PlaybanStrike.objects.get_or_create(
            user_id=player.user_id, game=game,
            defaults={"at": game.finished_at, "reason": game.ending},
        )
        if not created:
            return Playban.objects.filter(strike=strike).first()
        count = PlaybanStrike.objects.filter(
            user_id=player.user_id, at__gt=strike.at - conf.playban_window(), at__lte=strike.at,
        ).count()
        minutes = playban_minutes(count)
        if not minutes:
            return None
        return Playban.objects.create(
            user_id=player.user_id, strike=strike, started_at=strike.at,
            until=strike.at + timedelta(minutes=minutes), minutes=minutes,
        )
