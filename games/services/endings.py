"""The one finishing path (``finish_game``): every ending (a normal end, resignation, timeout
forfeit, claim of an abandoned game) stores the ``Game`` with its players and record, closes
the table and, after the commit, sends ``games.signals.game_finished``.
"""
from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from django.db import transaction
from django.utils import timezone

from core.channels import Outbox
from games import engine as E

from .. import signals, states
from ..bots.levels import computer_name
from ..exceptions import CannotClaim, InvalidSettings, NotPlaying
from ..local.table import standing
from ..models import Ending, Game, GamePlayer, Seat, Table, TableAction, TableStatus
from ..selectors.tables import players_came
from .departures import hand_over, publish_going_on
from .locking import after_commit, load_seats, lock_table_in, require_seat
from .publish import save_and_publish

if TYPE_CHECKING:
    from accounts.models import User

log = logging.getLogger(__name__)


def finish_game(table: Table, seats: list[Seat], state: E.GameState, *, ending: str,
                loser_seat: int | None, events: Sequence[E.Event] = (),
                last: dict[str, Any] | None = None, outbox: Outbox | None = None) -> Game:
    """Store the Game, close the table and announce it (the caller bumped the version).
    The last frames go into ``outbox`` when the caller gave one."""
    now = timezone.now()
    result = states.game_result(state) if state.is_over else None
    totals = list(result["totals"]) if result else list(state.scores)
    by_rules = result is not None and ending == Ending.NORMAL
    # people who left before the end, a computer playing their seat on: their places were
    # fixed when they left (services.departures)
    left_places = {s.index: int(s.left["place"]) for s in seats if s.left is not None}
    places, winner = standing(totals, loser_seat, by_rules=by_rules,
                              rules_winner=result["winner"] if result and by_rules else None,
                              left_places=left_places)
    actions = [
        {"version": a.version, "seat": a.seat, "action": a.action, "source": a.source,
         "at": a.created_at.isoformat().replace("+00:00", "Z")}
        for a in TableAction.objects.filter(table=table).order_by("version")
    ]
    game = Game.objects.create(
        table=table, mode=table.mode, settings=states.mode_settings(state),
        num_players=table.seat_count, target=table.target, rated=table.rated, seed=table.seed,
        actions=actions, hands=states.hand_results(state),
        final={"result": result, "totals": totals, "hand_points": list(state.scores),
               "places": places},
        ending=ending, loser_seat=loser_seat, winner_seat=winner,
        started_at=table.started_at, finished_at=now,
    )
    bots = Seat.bot_names(seats)
    # a no-show (a tournament's forfeit): everyone who never came is marked so, not only the
    # forfeiting seat (when neither player came, one of them still loses the match)
    absent = set()
    if ending == Ending.NO_SHOW:
        came = players_came(table.pk)
        absent = {s.index for s in seats if s.user_id is not None and not came[s.user_id]}
    for s in seats:
        if s.left is not None:  # the person who left is the player of this seat
            GamePlayer.of_game(
                game, private=table.private, seat=s.index, user_id=s.left_user_id,
                bot_level=None, name=str(s.left.get("name") or "")[:60],
                score=totals[s.index], place=places[s.index], won=False,
                left=s.left.get("reason") or "",
            ).save()
            continue
        GamePlayer.of_game(
            game, private=table.private, seat=s.index, user=s.user, bot_level=s.bot_level,
            name=s.user.public_name if s.user is not None
            else bots.get(s.index, computer_name(0)),
            score=totals[s.index], place=places[s.index],
            won=winner is not None and places[s.index] == 1,
            left=ending if (s.index == loser_seat and ending != Ending.NORMAL)
            or s.index in absent else "",
        ).save()
    game.record = game_record(game, state, seats)
    game.save(update_fields=["record"])
    table.status = TableStatus.FINISHED
    table.finished_at = now
    table.state = states.dump(state)
    table.turn_deadline = None
    table.deadline_seat = None
    save_and_publish(table, seats, state, events=events, last=last, outbox=outbox)
    game_id, table_id = game.pk, table.pk
    after_commit(
        lambda: signals.game_finished.send(sender=Game, game_id=game_id, table_id=table_id)
    )
    return game


def game_record(game: Game, state: E.GameState, seats: list[Seat]) -> dict[str, Any]:
    """The game record: the engine's ``GameRecord`` (format ``gin-record/1``, replays from the
    seed) with the site's players and how the game ended."""
    # Computers carry the same name in the engine record (text and JSON) as in the site's
    # players list: "Computer (Easy)", "Computer 2 (Easy)" (docs/records.md).
    bots = Seat.bot_names(seats)
    names = [s.user.username if s.user is not None
             else s.left["username"] if s.left is not None
             else bots.get(s.index, computer_name(0))
             for s in seats]
    timestamps = [_ms(a["at"]) for a in game.actions]
    try:
        if state.is_compact:  # the table stores states compact: replay the stored moves
            full = states.replay_moves(game.mode, game.seed, game.num_players, game.target,
                                     [(a["seat"], a["action"]) for a in game.actions])
            if full.to_dict(compact=True) != state.to_dict(compact=True):
                raise E.EngineError("the stored moves do not lead to the table's state")
            state = full
        engine = E.GameRecord.from_state(state, players=names, timestamps=timestamps).to_dict()
    except E.EngineError:  # the stored move list and the state disagree: keep the moves
        log.exception("engine record of game %s failed", game.pk)
        engine = None
    players = [player_entry(s, bots) for s in seats]
    # The score sheet as it stood when the game ended: for a game ended by a resignation, a
    # timeout or an abandonment (the engine's result is null) it is the only score there is.
    view = E.spectator_view(state, history="none")
    forfeit = None
    if game.ending != Ending.NORMAL and game.loser_seat is not None:
        forfeit = {**players[game.loser_seat], "reason": game.ending,
                   "after_hands": len(view["score_sheet"]["hands"])}
    leavers = leavers_of(game, seats, players, forfeit)
    return {
        "format": "ginsite-game/1",
        "mode": game.mode,
        "settings": game.settings,
        "num_players": game.num_players,
        "seed": game.seed,
        "players": players,
        "ending": game.ending,
        "loser_seat": game.loser_seat,
        "winner_seat": game.winner_seat,
        "forfeit": forfeit,
        "leavers": leavers,
        "result": game.final.get("result"),
        "totals": game.final.get("totals"),
        "score_sheet": {**view["score_sheet"], "hands_won": view["hands_won"],
                        "hand_points": list(state.scores)},
        "engine": engine,
    }


def player_entry(seat: Seat, bots: dict[int, str]) -> dict[str, Any]:
    """A seat's entry in the stored game's ``players``: the person who left it, if one did
    (with ``played_on_by``, the computer that played it on), else whoever sat there."""
    if seat.left is not None:
        return {"seat": seat.index, "name": seat.left.get("name"),
                "username": seat.left.get("username"), "bot_level": None,
                "played_on_by": {"name": bots.get(seat.index), "bot_level": seat.bot_level}}
    return {"seat": seat.index,
            "name": seat.user.public_name if seat.user is not None else bots.get(seat.index, ""),
            "username": seat.user.username if seat.user is not None else None,
            "bot_level": seat.bot_level}


def leavers_of(game: Game, seats: list[Seat], players: list[dict[str, Any]],
               forfeit: dict[str, Any] | None) -> list[dict[str, Any]]:
    """Every person who left the game before its end, the first to leave first: how, when,
    after how many finished hands and at what place; the one whose forfeit ended the game
    (``forfeit``) last."""
    left = sorted(((s.index, s.left) for s in seats if s.left is not None),
                  key=lambda pair: -int(pair[1]["place"]))
    out = [{**players[i], "reason": how.get("reason"), "at": how.get("at"),
            "after_hands": how.get("after_hands"), "moves_before": how.get("moves_before"),
            "place": how.get("place")}
           for i, how in left]
    if forfeit is not None:
        place = next((p.place for p in game.players.all() if p.seat == game.loser_seat), None)
        at = game.finished_at.isoformat().replace("+00:00", "Z")
        out.append({**forfeit, "at": at, "place": place})
    return out


def _ms(iso: str) -> int:
    from datetime import datetime

    return int(datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp() * 1000)


def game_finish(*, table_id: int, ending: str, loser_seat: int | None = None) -> Game:
    """End a playing table with ``ending`` from outside play (a tournament's forfeit,
    operators, tests). Live play ends games through ``finish_game`` directly, in the transaction
    of the move that ended them; both store the Game, close the table and send
    ``games.signals.game_finished``."""
    if ending not in Ending.values:
        raise InvalidSettings("Unknown ending.")
    with transaction.atomic():
        table = lock_table_in(table_id, TableStatus.PLAYING, NotPlaying())
        seats = load_seats(table)
        table.version += 1
        return finish_game(table, seats, states.load(table.state), ending=ending,
                       loser_seat=loser_seat)


def leave_game(table: Table, seats: list[Seat], state: E.GameState, leaving: list[Seat],
               reason: str, outbox: Outbox | None = None) -> Game | None:
    """``leaving`` (people, the first to leave first) leave the game for ``reason`` (an
    ``Ending``): at a table of three or four where another person plays on, a computer
    takes each seat and the game goes on (``services.departures``; None is returned);
    otherwise the game ends now, the one whose leaving ended it as the forfeiting seat (the
    stored ``Game`` is returned). The caller holds the row lock and bumped the version."""
    ending = hand_over(seats, leaving, state, reason)
    if ending is not None:
        return finish_game(table, seats, state, ending=reason, loser_seat=ending.index,
                           outbox=outbox)
    publish_going_on(table, seats, state, outbox=outbox)
    return None


def table_resign(*, table_id: int, user: User, outbox: Outbox | None = None) -> Table:
    """The user gives up their game: it ends, or at a table of three or four where another
    person plays on, it goes on without them (``leave_game``)."""
    with transaction.atomic():
        table = lock_table_in(table_id, TableStatus.PLAYING, NotPlaying(), user=user)
        seats = load_seats(table)
        mine = require_seat(seats, user)
        table.version += 1
        leave_game(table, seats, states.load(table.state), [mine], Ending.RESIGNATION,
                   outbox=outbox)
    return table


def table_claim(*, table_id: int, user: User, outbox: Outbox | None = None) -> Table:
    """Claim the game from the players gone longer than the grace period (the one away
    longest first): it ends, or goes on without them (``leave_game``)."""
    with transaction.atomic():
        table = lock_table_in(table_id, TableStatus.PLAYING, NotPlaying(), user=user)
        seats = load_seats(table)
        mine = require_seat(seats, user)
        now = timezone.now()
        gone = sorted((s for s in seats if s.index != mine.index and s.is_gone(now)),
                      key=lambda s: (s.last_seen or now, s.index))
        if not gone:
            raise CannotClaim()
        table.version += 1
        leave_game(table, seats, states.load(table.state), gone, Ending.ABANDONMENT,
                   outbox=outbox)
    return table
