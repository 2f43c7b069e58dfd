"""Finished games made directly (no live play), for the rating tests."""
from __future__ import annotations

from datetime import datetime, timedelta

from django.utils import timezone

from games.models import Ending, Game, GamePlayer


def make_game(players, *, mode: str = "classic", rated: bool = True, places=None,
              ending: str = Ending.NORMAL, loser_seat: int | None = None,
              finished_at: datetime | None = None, actions=None, table=None) -> Game:
    """A stored game between ``players`` (users, or ints for bot levels) with ``places``
    (default: seat order). Every human has played a move unless ``actions`` is given."""
    n = len(players)
    places = list(places or range(1, n + 1))
    if actions is None:
        actions = [{"version": i + 2, "seat": i, "action": "draw:stock", "source": "player",
                    "at": "2026-01-01T00:00:00Z"} for i in range(n)]
    game = Game.objects.create(
        table=table, mode=mode, num_players=n, target=100, rated=rated, seed=1,
        actions=actions, final={"places": places}, ending=ending, loser_seat=loser_seat,
        winner_seat=places.index(1) if places.count(1) == 1 else None,
        finished_at=finished_at or timezone.now(), started_at=timezone.now() - timedelta(minutes=9),
    )
    for seat, p in enumerate(players):
        bot = isinstance(p, int)
        GamePlayer.objects.create(
            game=game, seat=seat, user=None if bot else p, bot_level=p if bot else None,
            name=f"bot{p}" if bot else p.username, score=100 - places[seat],
            place=places[seat], won=places[seat] == 1 and places.count(1) == 1,
        )
    return game
