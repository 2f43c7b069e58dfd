"""Finished games stored directly (no live play): for the rating, archive, replay and
stats tests."""
from __future__ import annotations

import random
from datetime import datetime, timedelta

from django.utils import timezone

from games import engine as E
from games import states
from games.engine.selfplay import play_game, random_policy
from games.models import Ending, Game, GamePlayer, Room, Table, TableStatus


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


def short_game_state(mode="classic", *, seed=1, target=10, levels=("medium", "easy")):
    """A short whole game (to ``target`` points, one or two hands), each seat played by the
    computer of ``levels`` from its own view: a game an analysis gets through quickly."""
    from games.bots import get_bot

    state = E.new_game(mode, seed, len(levels), settings={"target": target})
    bots = [get_bot(level, seed=seed + i) for i, level in enumerate(levels)]
    while not state.is_over:
        seat = state.to_act
        action = bots[seat].choose(E.view_for(state, seat), E.legal_actions(state))
        state = E.apply(state, action).state
    return state


def finished_game(users, *, mode="classic", seed=1, private=False, rated=False, at=None,
                  bot_level=None, state=None):
    """A whole engine game (random play, or ``state``: a game played to its end) stored as a
    Game; ``users`` by seat (a bot seat when an entry is None, at ``bot_level``)."""
    n = len(users)
    if state is None:
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


T0 = timezone.now().replace(microsecond=0) - timedelta(days=400)


def hand(number, outcome, winner, points=0, **extra):
    """A stored hand result (``HandResult.to_dict`` shape) with the fields that matter."""
    return {"hand_number": number, "dealer": 0, "outcome": outcome, "winner": winner,
            "points": points, "base_points": points, "multiplier": 1, "knocker": None,
            "knocker_deadwood": 0, "defender": None, "defender_deadwood": 0,
            "going_rummy": False, "columns": [0], **extra}


def moves_by(*seats):
    """Stored actions in which each of ``seats`` made a move of its own: a game that ended
    early counts in the statistics only when everyone at it had moved."""
    return [{"seat": s, "source": "player"} for s in seats]


def store_game(players, *, mode="classic", hands=(), scores=None, winner=None,
               ending=Ending.NORMAL, loser_seat=None, minutes=10, at=None, actions=(),
               private_table=None, places=None):
    """A Game with one GamePlayer per entry of ``players`` (a user, or an int bot level).

    ``winner`` is the winning seat (None for a tie); places follow the scores."""
    n = len(players)
    scores = list(scores or [0] * n)
    finished = at or (T0 + timedelta(hours=Game.objects.count() + 1))
    if places is None:
        order = sorted(set(scores), reverse=True)
        places = [order.index(s) + 1 for s in scores]
        if winner is not None:
            places = [1 if i == winner else max(2, p) for i, p in enumerate(places)]
    game = Game.objects.create(
        table=private_table, mode=mode, settings={}, num_players=n, target=100, rated=False,
        seed=1, actions=list(actions), hands=list(hands),
        final={"totals": scores}, ending=ending, loser_seat=loser_seat, winner_seat=winner,
        started_at=finished - timedelta(minutes=minutes), finished_at=finished,
    )
    for seat, p in enumerate(players):
        is_bot = isinstance(p, int)
        GamePlayer.of_game(
            game, private=bool(private_table and private_table.private), seat=seat,
            user=None if is_bot else p, bot_level=p if is_bot else None,
            name=f"bot{p}" if is_bot else p.username, score=scores[seat],
            place=places[seat], won=winner is not None and seat == winner,
        ).save()
    return game


def random_game(players, *, mode, seed, at, target: int | None = None):
    """A whole game of random play by the engine, stored like games.services stores it;
    about one game in ten ends early by a resignation, a timeout or an abandonment.
    ``target``: the game's own target instead of the mode's (as a table sets it)."""
    rng = random.Random(seed)
    state = states.new_state(mode, seed, len(players), target)
    early = rng.random() < 0.1
    stop = rng.randint(20, 200) if early else None
    actions = []
    while not state.is_over and (stop is None or len(actions) < stop):
        seat = state.to_act
        action = random_policy(state, rng)
        state, _ = E.apply(state, action, seat=seat)
        source = "timeout" if rng.random() < 0.01 else "player"
        actions.append({"seat": seat, "action": str(action), "source": source})
    hands = states.hand_results(state)
    if state.is_over:
        result = state.result
        totals = list(result.totals)
        winner = result.winner
        ending, loser = Ending.NORMAL, None
    else:
        totals = list(state.scores)
        loser = rng.randrange(len(players))
        ending = rng.choice([Ending.RESIGNATION, Ending.TIMEOUT, Ending.ABANDONMENT])
        others = [i for i in range(len(players)) if i != loser]
        winner = max(others, key=lambda i: totals[i]) if len(players) == 2 else None
    places = None
    if loser is not None:
        places = [len(players) if i == loser else 1 for i in range(len(players))]
        if winner is not None:
            places = [1 if i == winner else 2 for i in range(len(players))]
    return store_game(players, mode=mode, hands=hands, scores=totals, winner=winner,
                      ending=ending, loser_seat=loser, at=at, actions=actions,
                      minutes=rng.randint(1, 40), places=places)
