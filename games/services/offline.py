"""Offline games uploaded by their player (docs/offline.md): replayed through the server's
engine by the record import (``games.records.record_import``), stored in the archive as a
``Game`` marked "offline, against the computer" (``Game.offline_id``), never rated, and
announced like every finished game (``games.signals.game_finished``, ``table_id=None``) so
that the statistics against the computer count it.
"""
from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from games import engine as E

from .. import conf, records, signals, states
from ..bots.levels import LEVEL_BY_NUMBER
from ..local.table import TARGET_RANGE, computer_move, standing, target_settings
from ..models import ActionSource, Ending, Game, GamePlayer, Mode, OfflineCheck, Seat
from .analysis import send_to_analyses
from .endings import game_record
from .locking import after_commit

if TYPE_CHECKING:
    from accounts.models import User

OFFLINE_ENDINGS = (Ending.NORMAL, Ending.RESIGNATION)
CHECK_TASK = "games.offline_check"
# The levels whose every move the upload's request plays again to compare. The Expert's
# search costs about 0.05-0.1 s a move, seconds a game: its moves are played again by a task
# (``offline_check_run``) before the game is stored.
REQUEST_LEVELS = (1, 2, 3)
TASK_LEVELS = tuple(level for level in sorted(LEVEL_BY_NUMBER) if level not in REQUEST_LEVELS)


class OfflineUploadError(ValueError):
    """An upload refused: ``code`` for programs, the message for people."""

    def __init__(self, code: str, message: str, status: int = 400):
        super().__init__(message)
        self.code = code
        self.status = status


def _refuse(message: str, code: str = "invalid") -> OfflineUploadError:
    return OfflineUploadError(code, message)


def _when(ms: Any, default: datetime) -> datetime:
    """A browser's timestamp (ms), kept within the last year and never in the future."""
    now = timezone.now()
    if not isinstance(ms, int | float) or isinstance(ms, bool) or ms <= 0:
        return default
    try:
        at = datetime.fromtimestamp(ms / 1000, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return default
    return min(max(at, now - timedelta(days=366)), now)


@dataclass(frozen=True)
class OfflineUpload:
    """What an upload did: the stored game (``None`` while its Expert moves are being
    checked, ``pending``) and whether this upload stored it."""

    game: Game | None
    created: bool = False


def _check(payload: dict[str, Any], checked: tuple[int, ...] = REQUEST_LEVELS,
           ) -> tuple[uuid.UUID, E.GameRecord, E.GameState, list[int]]:
    """What the upload claims, checked against the replay of its moves (the moves of the
    computers of the ``checked`` levels played again)."""
    if payload.get("format") != "ginsite-game/1":
        raise _refuse("This is not an offline game record.")
    try:
        offline_id = uuid.UUID(str(payload.get("offline_id")))
    except ValueError:
        raise _refuse("The game has no valid offline id.") from None
    players = payload.get("players")
    if not isinstance(players, list) or not 2 <= len(players) <= 4 \
            or not all(isinstance(p, dict) for p in players):
        raise _refuse("The record's players are not valid.")
    if players[0].get("bot_level") is not None:
        raise _refuse("Seat 1 must be the player who uploads the game.")
    levels = [p.get("bot_level") for p in players[1:]]
    if not all(isinstance(lv, int) and lv in LEVEL_BY_NUMBER for lv in levels):
        raise _refuse("Every other seat must be a computer of level 1 to 4.")
    if payload.get("mode") not in Mode.values:
        raise _refuse("Unknown mode.")
    ending = payload.get("ending")
    if ending not in OFFLINE_ENDINGS:
        raise _refuse("An offline game ends normally or by resignation.")
    try:
        record, _names = records.record_import(json.dumps(payload))
    except records.RecordImportError as exc:
        raise OfflineUploadError("tampered", str(exc)) from None
    if record.mode != payload["mode"] or record.num_players != len(players):
        raise OfflineUploadError("tampered", "The record's mode or players differ from its moves.")
    state = E.replay(record, verify=True)
    _check_rules(record, state)
    _check_computer_moves(record, levels, checked)
    if ending == Ending.NORMAL and not state.is_over:
        raise OfflineUploadError("tampered", "The game is not over: its moves stop before the end.")
    if ending == Ending.RESIGNATION:
        if payload.get("loser_seat") != 0:
            raise _refuse("Only the player can resign an offline game.")
        if state.is_over:
            raise OfflineUploadError("tampered", "The game ended by the rules, not by resignation.")
    return offline_id, record, state, levels


def _check_rules(record: E.GameRecord, state: E.GameState) -> None:
    """The mode's own rules, as the offline page starts a game: only the target may differ
    (50 to 500). A record with rules of its own (a knock limit of 1,000, a hand of one card)
    made wins against the computer that counted in the player's statistics."""
    n, target = record.num_players, state.target
    default = E.get_mode(record.mode).target_for(n)
    standard = E.get_mode(record.mode, **target_settings(record.mode, n, target)).to_dict()
    if (target != default and not TARGET_RANGE[0] <= target <= TARGET_RANGE[1]) \
            or state.mode.to_dict() != standard:
        raise OfflineUploadError(
            "tampered", "The record's rules are not the mode's own: an offline game changes "
            f"only its target ({TARGET_RANGE[0]} to {TARGET_RANGE[1]} points).")


def _check_computer_moves(record: E.GameRecord, levels: list[int],
                          checked: tuple[int, ...]) -> None:
    """Each computer's move must be the one its bot makes in that position (the bots are
    seeded by the game: ``games.local.table.computer_move``), so a game where the player
    chose the computer's moves is refused."""
    if not any(level in checked for level in levels):
        return
    state = record.new_state()
    for number, move in enumerate(record.moves, start=1):
        level = levels[move.seat - 1] if move.seat > 0 else None
        if level in checked and computer_move(state, level, record.seed) != move.action:
            raise OfflineUploadError(
                "tampered", f"Move {number} is not the computer's move in that position.")
        state, _ = E.apply(state, move.action, move.seat)


def offline_game_store(*, user: User, payload: Any) -> OfflineUpload:
    """Store ``user``'s finished offline game (the ``ginsite-game/1`` record the browser
    built): uploading the same game again answers with the stored one. A game against the
    Expert waits for the check of the Expert's moves (``offline_check_run``, a task) and is
    answered as pending until then; once refused, its upload is answered with the refusal.
    Raises ``OfflineUploadError`` (nothing stored) for a record that is not valid, does not
    replay or whose results differ from its moves."""
    if not isinstance(payload, dict):
        raise _refuse("The upload is not a game record.")
    offline_id, record, state, levels = _check(payload)
    existing = Game.objects.filter(offline_id=offline_id).first()
    if existing is not None:
        return OfflineUpload(_same_owner(existing, user))
    _check_new_deal(record)
    if any(level in TASK_LEVELS for level in levels):
        _wait_for_check(user, offline_id, payload)
        return OfflineUpload(None)
    game, created = _store(user, payload, offline_id, record, state, levels)
    return OfflineUpload(game, created)


def _wait_for_check(user: User, offline_id: uuid.UUID, payload: dict[str, Any]) -> None:
    """The upload kept (``OfflineCheck``) and its check queued, once; queued again when it
    has been silent for longer than an analysis may be (lost on the way). A refusal already
    made is raised again."""
    now = timezone.now()
    with transaction.atomic():
        check, created = OfflineCheck.objects.select_for_update().get_or_create(
            offline_id=offline_id, defaults={"owner": user, "payload": payload, "queued_at": now})
        if check.owner_id != user.pk:
            raise OfflineUploadError(
                "conflict", "This game was uploaded by another account.", status=409)
        if check.error:
            raise OfflineUploadError(check.error_code or "tampered", check.error,
                                     status=409 if check.error_code == "replayed" else 400)
        lost = (now - check.queued_at).total_seconds() > float(conf.get("ANALYSIS_STALE"))
        if not (created or lost):
            return
        if lost:
            check.queued_at = now
            check.save(update_fields=["queued_at"])
        key = str(offline_id)
        after_commit(lambda: _queue_check(key))


def _queue_check(offline_id: str) -> None:
    """The check, on the analyses' queue (seconds of the Expert's search). A failure to queue
    leaves the upload waiting; the next upload of it queues it again once it is stale."""
    send_to_analyses(CHECK_TASK, offline_id)


def offline_check_run(*, offline_id: str) -> bool:
    """The task's work: play the waiting upload's Expert moves again (the upload's request
    checked the rest, and everything else is checked again as the record is read); store the
    game if each is its bot's, or keep the refusal. Safe to run twice: a game stored already
    or a refusal made is left alone. True when it stored the game."""
    check = OfflineCheck.objects.filter(offline_id=offline_id).select_related("owner").first()
    if check is None or check.error:
        return False
    if Game.objects.filter(offline_id=check.offline_id).exists():
        check.delete()
        return False
    try:
        key, record, state, levels = _check(check.payload, checked=TASK_LEVELS)
        _check_new_deal(record)
        _store(check.owner, check.payload, key, record, state, levels)
    except OfflineUploadError as exc:
        OfflineCheck.objects.filter(pk=check.pk).update(
            error=str(exc)[:200], error_code=exc.code[:20])
        return False
    check.delete()
    return True


def _store(user: User, payload: dict[str, Any], offline_id: uuid.UUID, record: E.GameRecord,
           state: E.GameState, levels: list[int]) -> tuple[Game, bool]:
    """The checked game stored as ``user``'s, and announced after the commit."""
    ending = payload["ending"]
    loser_seat = 0 if ending == Ending.RESIGNATION else None
    result = state.result.to_dict() if state.result else None
    totals = list(state.result.totals) if state.result else list(state.scores)
    places, winner = standing(totals, loser_seat, by_rules=ending == Ending.NORMAL,
                              rules_winner=result["winner"] if result else None)
    now = timezone.now()
    finished_at = _when(payload.get("finished_at"), now)
    started_at = min(_when(payload.get("started_at"), finished_at), finished_at)
    actions = [
        {"version": i + 2, "seat": m.seat, "action": m.action,
         "source": ActionSource.PLAYER if m.seat == 0 else ActionSource.BOT,
         "at": _when(m.ts, finished_at).isoformat().replace("+00:00", "Z")}
        for i, m in enumerate(record.moves)
    ]
    seats = [Seat(index=0, user=user)] + [
        Seat(index=i + 1, bot_level=level) for i, level in enumerate(levels)
    ]
    bots = Seat.bot_names(seats)
    try:
        with transaction.atomic():
            game = Game.objects.create(
                table=None, mode=record.mode, settings=states.mode_settings(state),
                num_players=record.num_players, target=state.target, rated=False,
                seed=record.seed, actions=actions, hands=states.hand_results(state),
                final={"result": result, "totals": totals, "hand_points": list(state.scores),
                       "places": places},
                ending=ending, loser_seat=loser_seat, winner_seat=winner,
                started_at=started_at, finished_at=finished_at, offline_id=offline_id,
            )
            for s in seats:
                GamePlayer.of_game(
                    game, private=False, seat=s.index, user=s.user if s.index == 0 else None,
                    bot_level=s.bot_level,
                    name=user.public_name if s.index == 0 else bots[s.index],
                    score=totals[s.index], place=places[s.index],
                    won=winner is not None and places[s.index] == 1,
                ).save()
            game.record = {**game_record(game, state, seats), "offline": True}
            game.save(update_fields=["record"])
            game_id = game.pk
            after_commit(lambda: signals.game_finished.send(
                sender=Game, game_id=game_id, table_id=None))
    except IntegrityError:  # the same game uploaded twice at once: the other one won
        existing = Game.objects.filter(offline_id=offline_id).first()
        if existing is None:
            _check_new_deal(record)  # or the same deal under another id
            raise
        return _same_owner(existing, user), False
    return game, True


def _check_new_deal(record: E.GameRecord) -> None:
    """An offline game is dealt anew in the browser: a deal the archive already holds is the
    record of a game stored before (an online one, once its seed is public at its end, or an
    offline one under another id), which would be stored again as the uploader's own."""
    if Game.objects.filter(seed=record.seed, mode=record.mode).exists():
        raise OfflineUploadError(
            "replayed", "This game's deal is already in the archive: only a game played "
            "offline on a deal of its own can be uploaded.", status=409)


def _same_owner(game: Game, user: User) -> Game:
    if not GamePlayer.objects.filter(game=game, seat=0, user=user).exists():
        raise OfflineUploadError(
            "conflict", "This game was uploaded by another account.", status=409)
    return game
