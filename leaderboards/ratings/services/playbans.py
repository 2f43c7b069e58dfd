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
    """A rated game ended because a player timed out or left, or went on without a player
    who timed out or was claimed as gone (a game of three or four, ``GamePlayer.left``): a
    strike for each of them, and a bar from rated tables by the ladder. Idempotent (one
    strike per game and user). Returns the bar given for the game, if any. A player the site
    seated who never came to the table (a tournament's no-show, who loses the match for it)
    gets none: the strike is for leaving a game, and in a bracket one absence became two
    strikes and a bar."""
    game = Game.objects.filter(pk=game_id).first()
    if game is None or not game.rated:
        return None
    players = list(GamePlayer.objects.filter(game=game).order_by("seat"))
    came: dict[int, bool] | None = None
    bans = []
    for player in players:
        # how the player left (games stored before ``left`` name only the forfeiting seat)
        left = player.left or (game.ending if player.seat == game.loser_seat else "")
        if left not in STRIKE_ENDINGS or player.user_id is None:
            continue
        if came is None:
            came = (games_selectors.players_came(game.table_id)
                    if game.table_id is not None else {})
        if not came.get(player.user_id, True):
            continue
        bans.append(_strike(game, player.user_id, left))
    return next((ban for ban in bans if ban is not None), None)


def _strike(game: Game, user_id: int, reason: str) -> Playban | None:
    with transaction.atomic():
        strike, created = PlaybanStrike.objects.get_or_create(
            user_id=user_id, game=game, defaults={"at": game.finished_at, "reason": reason},
        )
        if not created:
            return Playban.objects.filter(strike=strike).first()
        count = PlaybanStrike.objects.filter(
            user_id=user_id, at__gt=strike.at - conf.playban_window(), at__lte=strike.at,
        ).count()
        minutes = playban_minutes(count)
        if not minutes:
            return None
        return Playban.objects.create(
            user_id=user_id, strike=strike, started_at=strike.at,
            until=strike.at + timedelta(minutes=minutes), minutes=minutes,
        )
