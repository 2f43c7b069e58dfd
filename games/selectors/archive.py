"""Reads of finished games: who may see one, archives, the export's batches, a game in a list."""
from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta, tzinfo
from typing import Any

from django.db.models import Exists, OuterRef, Prefetch, Q
from django.utils import timezone

from ..models import (
    Ending,
    Game,
    GamePlayer,
    Seat,
)
from ..records import FORFEIT_VERB

# ------------------------------------------------------------------------- archive


def game_private(game: Game) -> bool:
    """Whether ``game`` was played at a private table: read from the seats' copy
    (``GamePlayer.private``) as well as the table, so it outlives the table's row."""
    table = game.table
    return (table is not None and table.private) or any(p.private for p in game.players.all())


def game_visible(game: Game, viewer) -> bool:
    """Private tables' games are for their players only (``game_private``)."""
    if not game_private(game):
        return True
    players = game.players.all()
    if viewer is None or not getattr(viewer, "is_authenticated", False):
        return False
    return any(p.user_id == viewer.pk for p in players)


def game_for_viewer(game_id: int, viewer) -> Game | None:
    """The game of ``/games/<id>/`` if ``viewer`` may see it."""
    game = (
        Game.objects.filter(pk=game_id).select_related("table")
        .prefetch_related(Prefetch("players", queryset=GamePlayer.objects.select_related("user")))
        .first()
    )
    if game is None or not game_visible(game, viewer):
        return None
    return game


def user_has_games(user) -> bool:
    """Has ``user`` played: a finished game, or a seat at a table now (asked before an
    account becomes a bot, through ``accounts.activity``)."""
    return (GamePlayer.objects.filter(user=user).exists()
            or Seat.objects.filter(user=user).exists())


def day_start(day: date, tz: tzinfo, *, days_after: int = 0) -> datetime | None:
    """The start of ``day`` (plus ``days_after`` days) in ``tz``, in UTC; None when that
    moment is past what a datetime holds (a "to" of 31 Dec 9999, a "from" of 1 Jan 1 east
    of Greenwich): such a bound leaves nothing out, so it is no bound at all."""
    try:
        return datetime.combine(day + timedelta(days=days_after), time.min,
                                tzinfo=tz).astimezone(UTC)
    except OverflowError:
        return None


# the big JSON columns a list of games never shows
ARCHIVE_DEFERRED = ("actions", "hands", "record", "settings", "final")


def archive_games(*, player, viewer, mode: str = "", opponent=None, bot_level=None,
                  computer: bool = False, result: str = "", rated: str = "",
                  date_from=None, date_to=None):
    """``player``'s finished games that ``viewer`` may see, newest first (by id: a Game is
    created when it finishes, so ids follow the finishing order and the archive walks the
    ``gameplayer_user_game`` index instead of sorting every game). Every filter reads the
    player's own GamePlayer rows (their copies of the game's mode, rating, privacy and
    time), never the games table. As GamePlayer rows
    (``.game`` and the game's players prefetched). ``opponent`` is a user who must have
    played in the game; ``computer`` keeps games with any computer, ``bot_level`` one level.
    Dates are inclusive days in the current time zone."""
    qs = GamePlayer.objects.filter(user=player)
    if viewer is None or not getattr(viewer, "is_authenticated", False) or viewer.pk != player.pk:
        shared = Q(private=False)
        if viewer is not None and getattr(viewer, "is_authenticated", False):
            shared |= Exists(GamePlayer.objects.filter(game=OuterRef("game"), user=viewer))
        qs = qs.filter(shared)
    if mode:
        qs = qs.filter(mode=mode)
    if opponent is not None:
        qs = qs.filter(Exists(GamePlayer.objects.filter(game=OuterRef("game"), user=opponent)))
    if bot_level is not None:
        qs = qs.filter(Exists(GamePlayer.objects.filter(game=OuterRef("game"),
                                                         bot_level=bot_level)))
    elif computer:
        qs = qs.filter(Exists(GamePlayer.objects.filter(game=OuterRef("game"),
                                                         bot_level__isnull=False)))
    if result == "win":
        qs = qs.filter(won=True)
    elif result == "tie":  # first place shared: nobody won
        qs = qs.filter(won=False, place=1)
    elif result == "loss":
        qs = qs.filter(won=False, place__gt=1)
    if rated == "rated":
        qs = qs.filter(rated=True)
    elif rated == "casual":
        qs = qs.filter(rated=False)
    tz = timezone.get_current_timezone()
    start = day_start(date_from, tz) if date_from else None
    if start is not None:
        qs = qs.filter(finished_at__gte=start)
    end = day_start(date_to, tz, days_after=1) if date_to else None
    if end is not None:
        qs = qs.filter(finished_at__lt=end)
    # The page's games come in a second query (not a join): the page itself is then a walk
    # down the player's index that stops after 25 rows.
    return qs.prefetch_related(
        Prefetch("game", queryset=Game.objects.defer(*ARCHIVE_DEFERRED)),
        # the players' accounts come along (one join): a bot account's name has a badge
        Prefetch("game__players", queryset=GamePlayer.objects.select_related("user")
                 .order_by("seat")),
    ).order_by("-game_id")  # = finishing order (see GamePlayer's index)


# ------------------------------------------------------------------------ export

def export_batch(*, player_id: int, include_private: bool, mode: str = "",
                 since: datetime | None = None, until: datetime | None = None,
                 before_game: int | None = None, size: int = 100) -> list[Game]:
    """One batch of ``player``'s finished games for the export (``GET /api/games/export/``),
    newest first, ``size`` at most, older than game ``before_game`` (the previous batch's
    last): a walk down the ``gameplayer_user_game`` index, whatever the number of games.
    Private tables' games only with ``include_private`` (the owner's own token). ``since``
    is inclusive, ``until`` exclusive. ``Game`` rows with only what the export writes
    (id, finish time, the stored record): the other JSON columns would double its work."""
    qs = GamePlayer.objects.filter(user_id=player_id)
    if not include_private:
        qs = qs.filter(private=False)
    if mode:
        qs = qs.filter(mode=mode)
    if since is not None:
        qs = qs.filter(finished_at__gte=since)
    if until is not None:
        qs = qs.filter(finished_at__lt=until)
    if before_game is not None:
        qs = qs.filter(game_id__lt=before_game)
    ids = list(qs.order_by("-game_id").values_list("game_id", flat=True)[:size])
    games = {g.pk: g for g in Game.objects.filter(pk__in=ids).only("id", "finished_at",
                                                                  "record")}
    return [games[i] for i in ids if i in games]


# ------------------------------------------------------------------------ one game in a list



def and_list(names: list[str]) -> str:
    """'ann', 'ann and bob', 'ann, bob and cy'."""
    if len(names) <= 1:
        return "".join(names)
    return f"{', '.join(names[:-1])} and {names[-1]}"


def forfeiters(game: Game, players: list[GamePlayer]) -> list[str]:
    """The names of whoever gave ``game`` up, by seat: the forfeiting seat's, and for a no-show
    everyone who never came (when neither player came, one of them still lost the match)."""
    return [p.name for p in sorted(players, key=lambda p: p.seat)
            if p.seat == game.loser_seat
            or (game.ending == Ending.NO_SHOW and p.left == Ending.NO_SHOW)]


def went_on_without(game: Game, player: GamePlayer) -> bool:
    """Whether ``player`` left ``game`` and it went on without them (a computer played their
    seat): they left, and not as the forfeit that ended it nor as one who never came."""
    left = getattr(player, "left", "")
    return bool(left) and player.seat != game.loser_seat and left != Ending.NO_SHOW


def game_summary(gp: GamePlayer) -> dict[str, Any]:
    """How one player's finished game reads in a short list (the profile's recent games):
    ``result`` (won, lost, tied), ``opponents`` ("carol3", "ann and bob"), ``score`` ("112
    to 35", "150 to 40 and 12"; empty when nobody scored a point) and ``ending`` ("carol3
    resigned", "ann timed out before anyone scored"; empty for a game played to the end).
    Reads ``gp.game`` and its players as ``archive_games`` prefetches them."""
    game = gp.game
    players = sorted(game.players.all(), key=lambda p: p.seat)
    others = [p for p in players if p.seat != gp.seat]
    if gp.won:
        result = "won"
    elif game.winner_seat is None and gp.place == 1:
        result = "tied"
    else:
        result = "lost"
    scored = any(p.score for p in players)
    score = ""
    if scored:
        score = f"{gp.score} to {and_list([str(p.score) for p in others])}"
    ending = ""
    verb = FORFEIT_VERB.get(game.ending)
    if game.ending == Ending.NO_SHOW:
        ending = f"{and_list(forfeiters(game, players))} did not come"
    elif verb:
        loser = next((p for p in players if p.seat == game.loser_seat), None)
        ending = f"{loser.name} {verb}" if loser is not None else f"ended by {game.ending}"
        if not scored:
            ending += " before anyone scored"
    elif not scored:
        ending = "nobody scored"
    # people who left a game of three or four that went on without them
    left = [p for p in players if went_on_without(game, p)]
    if left:
        went_on = and_list([f"{p.name} {FORFEIT_VERB.get(p.left, 'left')}" for p in left])
        # (and so their seats' totals are partly the computer's: say it, as the game page)
        seats = "their seats" if len(left) > 1 else "their seat"
        went_on += f", and the computer played {seats} on"
        ending = f"{went_on}; {ending}" if ending else went_on
    return {"result": result, "opponents": and_list([p.name for p in others]),
            "score": score, "ending": ending}
