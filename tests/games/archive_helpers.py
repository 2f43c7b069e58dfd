"""Stored finished games with a real engine record (as games.services stores them)."""
from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from games import engine as E
from games import states
from games.engine.selfplay import play_game
from games.models import Ending, Game, GamePlayer, Room, Table, TableStatus


def finished_game(users, *, mode="classic", seed=1, private=False, rated=False, at=None,
                  bot_level=None):
    """A whole engine game (random play) stored as a Game; ``users`` by seat (a bot seat
    when an entry is None, at ``bot_level``)."""
    n = len(users)
    state = play_game(mode, seed=seed, num_players=n, check=False)
    result = state.result
    names = [u.username if u else f"bot-{bot_level}" for u in users]
    engine = E.GameRecord.from_state(state, players=names).to_dict()
    table = None
    if private:
        room = Room.objects.filter(mode=mode).first() or Room.objects.create(
            slug=mode, name=mode, mode=mode)
        table = Table.objects.create(room=room, mode=mode, seat_count=n, target=100,
                                     private=True, status=TableStatus.FINISHED, seed=seed)
    finished = at or timezone.now()
    totals = list(result.totals)
    order = sorted(set(totals), reverse=True)
    places = [order.index(t) + 1 for t in totals]
    game = Game.objects.create(
        table=table, mode=mode, settings=states.mode_settings(state), num_players=n,
        target=state.target, rated=rated, seed=seed, actions=[],
        hands=states.hand_results(state),
        final={"result": result.to_dict(), "totals": totals, "places": places},
        ending=Ending.NORMAL, winner_seat=result.winner,
        started_at=finished - timedelta(minutes=15), finished_at=finished,
    )
    players = []
    for seat, u in enumerate(users):
        players.append({"seat": seat, "name": u.public_name if u else f"Computer ({bot_level})",
                        "username": u.username if u else None,
                        "bot_level": None if u else bot_level})
        GamePlayer.of_game(
            game, private=private, seat=seat, user=u, bot_level=None if u else bot_level,
            name=players[-1]["name"], score=totals[seat], place=places[seat],
            won=result.winner == seat,
        ).save()
    game.record = {
        "format": "ginsite-game/1", "mode": mode, "settings": game.settings,
        "num_players": n, "seed": seed, "players": players, "ending": "normal",
        "loser_seat": None, "winner_seat": result.winner, "result": result.to_dict(),
        "totals": totals, "engine": engine,
    }
    game.save(update_fields=["record"])
    return game
