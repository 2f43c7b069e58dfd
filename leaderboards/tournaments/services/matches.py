"""A match's table, its result and its forfeit; ``DESK``, the writes the formats ask for.

Tables are opened through ``games.services.table_create_for_players`` (the tournament row is
locked first, the table's after it, never the other way).
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import partial
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from games import selectors as games_selectors
from games import services as games_services
from games.exceptions import GameServiceError
from games.models import Ending, Game, GamePlayer, Seat
from social.notify import user_ref
from social.presence import presence_reachable

from .. import frames, ratings
from ..formats import format_for
from ..models import Entry, Match, MatchEnding, MatchStatus, OutReason, Status, Tournament
from .locking import pairing_lock, room_for
from .notices import notify_after_commit


def match_open(t: Tournament, *, key: str, round: int, a: int, b: int) -> bool:
    """A table for players ``a`` and ``b`` (user ids), and the notice to both; while either
    is in a game with people elsewhere (another tournament's match), or has a match paired
    earlier that still waits, the match waits and its table opens once both are free
    (``matches_waiting_open``). A player playbanned since entering is withdrawn instead
    (their match, except in an arena, is a forfeit); returns False then."""
    pairing_lock()  # (whether they are free is read and acted on by one pairing at a time)
    users = get_user_model().objects.in_bulk([a, b])
    if _withdraw_banned(t, users, key=key, round=round, a=a, b=b):
        return False
    busy = games_selectors.playing_with_people([a, b]) | set(waiting_since([a, b]))
    match = Match.objects.create(
        tournament=t, key=key, round=round, player_a_id=a, player_b_id=b,
        status=MatchStatus.WAITING if busy else MatchStatus.PLAYING)
    if busy:
        _tables_waiting_leave(users[a], users[b])
        _tell_both(users[a], users[b], lambda them: frames.waiting_notice(
            t, opponent=user_ref(them), round=round))
    else:
        _table_open(t, match, users[a], users[b])
    return True


def waiting_since(user_ids: Iterable[int]) -> dict[int, int]:
    """Of ``user_ids``, the players with a match of a running public tournament that waits,
    each with the id of their first such match: it opens before anything paired after it.
    (Without this a game ended by the sweep, a no-show, let its tournament pair the player
    again at once, and the match that had waited for that game waited on.) A private
    tournament's waiting match holds nobody elsewhere: a public match held by it would tell
    everyone that a game nobody may see was due (as a private game holds nobody back,
    ``games.selectors.playing_with_people``)."""
    ids = set(user_ids)
    first: dict[int, int] = {}
    for pk, a, b in (Match.objects.filter(Q(player_a_id__in=ids) | Q(player_b_id__in=ids),
                                          status=MatchStatus.WAITING,
                                          tournament__status=Status.RUNNING,
                                          tournament__private=False)
                     .order_by("-pk").values_list("pk", "player_a_id", "player_b_id")):
        for u in (a, b):
            if u in ids:
                first[u] = pk
    return first


def matches_waiting_open(t: Tournament) -> int:
    """Open the table of every waiting match of ``t`` whose players are both free now (the
    game that kept one of them has ended, and neither has a match paired earlier that still
    waits), or decide it (a player's account closed, a playban); how many changed. Three
    queries, however many wait (and a playban's read per match opened)."""
    waiting = list(Match.objects.filter(tournament=t, status=MatchStatus.WAITING).order_by("pk"))
    if not waiting:
        return 0
    pairing_lock()
    ids = {u for m in waiting for u in (m.player_a_id, m.player_b_id) if u is not None}
    users = get_user_model().objects.in_bulk(list(ids))
    busy = games_selectors.playing_with_people(ids)
    since = waiting_since(ids)
    changed = 0
    for match in waiting:
        a, b = match.player_a_id, match.player_b_id
        if a is None or b is None:  # a player's account closed: the other goes through
            match_record(t, match, winner_id=a or b, ending=MatchEnding.WITHDRAWAL)
            changed += 1
        elif not busy & {a, b} and all(since.get(u, match.pk) >= match.pk for u in (a, b)):
            if not _withdraw_banned(t, users, match=match, a=a, b=b):
                _table_open(t, match, users[a], users[b])
                busy |= {a, b}
            changed += 1
    return changed


def _withdraw_banned(t: Tournament, users: dict[int, Any], *, a: int, b: int, key: str = "",
                     round: int = 0, match: Match | None = None) -> bool:
    """Withdraw whichever of ``a`` and ``b`` is playbanned now, and decide their match
    (``match``, a waiting one, or the pairing ``key``) as the format says; whether any was."""
    now = timezone.now()
    banned = [u for u in (a, b) if (ratings.playban_until(users[u]) or now) > now]
    if not banned:
        return False
    Entry.objects.filter(tournament=t, user_id__in=banned).update(
        withdrawn=True, out_reason=OutReason.BANNED)
    fmt = format_for(t)
    if not fmt.forfeits_banned:
        if match is not None:
            match.delete()  # (an arena only stops pairing them)
    elif match is not None:
        match_record(t, match, winner_id=fmt.banned_winner(a, b, banned),
                     ending=MatchEnding.WITHDRAWAL)
    else:
        match_unplayed(t, key=key, round=round, a=a, b=b,
                       winner=fmt.banned_winner(a, b, banned))
    return True


def _table_open(t: Tournament, match: Match, a: Any, b: Any) -> None:
    """The table of ``match`` (its players, users ``a`` and ``b``), dealt now; the no-show clock
    starts with it. After the commit its players leave their waiting tables, and both are
    told."""
    match.table = games_services.table_create_for_players(
        room=room_for(t.mode), players=[a, b], target=t.target, rated=t.rated,
        seconds_per_turn=t.seconds_per_turn, created_by=None,
        # a private tournament's games are its players' alone: the table, its game and the
        # players' profiles show them to nobody else
        private=t.private,
    )
    match.status = MatchStatus.PLAYING
    match.created_at = timezone.now()
    match.save(update_fields=["table", "status", "created_at"])
    _tables_waiting_leave(a, b)
    _tell_both(a, b, lambda them: frames.match_notice(t, table=match.table,
                                                      opponent=user_ref(them),
                                                      round=match.round))


def _tell_both(a: Any, b: Any, frame: Callable[[Any], dict[str, Any]]) -> None:
    """After the commit, each of users ``a`` and ``b`` gets ``frame(their opponent)``."""
    for me, them in ((a, b), (b, a)):
        notify_after_commit([me.pk], frame(them))


def _tables_waiting_leave(*players: Any) -> None:
    """After the commit, ``players`` leave the tables where they wait for a game (filling
    up, one would deal them a second game, or keep their waiting match waiting), each in a
    transaction of its own (left inside the pairing's, two tournaments pairing the same
    players at once locked their tables in opposite orders and deadlocked)."""
    for player in players:
        transaction.on_commit(partial(games_services.tables_waiting_leave, player), robust=True)


def match_record(t: Tournament, match: Match, *, winner_id: int | None, ending: str,
                 scores: tuple[int | None, int | None] = (None, None)) -> None:
    match.status = MatchStatus.FINISHED
    match.winner_id = winner_id
    match.ending = ending
    match.score_a, match.score_b = scores
    match.finished_at = timezone.now()
    match.save()


def match_unplayed(t: Tournament, *, key: str, round: int, a: int, b: int,
                   winner: int | None) -> None:
    """A match decided without play: a withdrawn (or playbanned) player's."""
    match = Match.objects.create(tournament=t, key=key, round=round, player_a_id=a,
                                 player_b_id=b)
    match_record(t, match, winner_id=winner, ending=MatchEnding.WITHDRAWAL)


def match_bye(t: Tournament, *, key: str, round: int, player: int) -> None:
    Match.objects.create(tournament=t, key=key, round=round, player_a_id=player,
                         status=MatchStatus.BYE, winner_id=player, ending=MatchEnding.BYE,
                         finished_at=timezone.now())


def match_forfeit(t: Tournament, match: Match, *, loser_id: int, ending: str) -> None:
    """``loser_id`` loses ``match`` without playing on; its game ends now, as a no-show when
    they never came to it (``MatchEnding.NO_SHOW``), else as abandoned (a withdrawal)."""
    winner_id = match.player_b_id if match.player_a_id == loser_id else match.player_a_id
    if match.table_id is not None:
        seat = Seat.objects.filter(table_id=match.table_id, user_id=loser_id).first()
        try:
            how = Ending.NO_SHOW if ending == MatchEnding.NO_SHOW else Ending.ABANDONMENT
            games_services.game_finish(table_id=match.table_id, ending=how,
                                       loser_seat=seat.index if seat else None)
        except GameServiceError:
            pass  # the game had just ended: this result stands instead
    match_record(t, match, winner_id=winner_id, ending=ending)


def match_record_game(t: Tournament, match: Match) -> bool:
    """Record ``match`` from its stored game (False if it is recorded or not over yet)."""
    if match.status != MatchStatus.PLAYING or match.table_id is None:
        return False
    game = Game.objects.filter(table_id=match.table_id).first()
    if game is None:
        return False
    by_seat = {gp.seat: gp for gp in GamePlayer.objects.filter(game=game)}
    score = {gp.user_id: gp.score for gp in by_seat.values()}
    winner = by_seat[game.winner_seat].user_id if game.winner_seat in by_seat else None
    if winner is None:
        winner = format_for(t).tied_winner(t, match)
    match_record(t, match, winner_id=winner, ending=MatchEnding.PLAYED,
                 scores=(score.get(match.player_a_id), score.get(match.player_b_id)))
    return True


class ServicesDesk:
    """The ``formats.MatchDesk`` of the services: what a format may write."""

    def open(self, t: Tournament, *, key: str, round: int, a: int, b: int) -> bool:
        return match_open(t, key=key, round=round, a=a, b=b)

    def unplayed(self, t: Tournament, *, key: str, round: int, a: int, b: int,
                 winner: int | None) -> None:
        match_unplayed(t, key=key, round=round, a=a, b=b, winner=winner)

    def bye(self, t: Tournament, *, key: str, round: int, player: int) -> None:
        match_bye(t, key=key, round=round, player=player)

    def present(self, user_ids: list[int]) -> set[int]:
        """Who has a page of the site open, no game with people in play elsewhere and no
        match of another tournament waiting for them."""
        return (presence_reachable(user_ids) - games_selectors.playing_with_people(user_ids)
                - set(waiting_since(user_ids)))


DESK = ServicesDesk()
