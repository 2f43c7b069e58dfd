"""Pages of finished games: archives, a game's replay, record download."""
from __future__ import annotations

import json
import re

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_safe

from accounts.models import User
from accounts.selectors import user_get_by_username
from core.http import for_viewer_only
from core.paging import page_asked, pages_text
from games import engine as E
from games.bots.analysis import ANALYSER_VERSION
from games.bots.levels import LEVEL_TABLE

from .. import hooks, records, replay, selectors
from ..forms import ArchiveFilterForm

ARCHIVE_PAGE = 25
BOT_LEVEL_BY_KEY = {level.key: level.number for level in LEVEL_TABLE}
LEVEL_KEYS = ", ".join(BOT_LEVEL_BY_KEY)
COMPUTER_AS_WRITTEN = re.compile(r"computer(?: \d+)? \((\w+)\)", re.IGNORECASE)


def _page_error(asked: str | None, pages: int) -> str:
    """Why ``?page=`` names no page of the list ("" when it does, or is not given)."""
    try:
        number = page_asked(asked)
    except ValueError as exc:
        return str(exc)
    return f"These games fill {pages_text(pages)}." if number > pages else ""


def _archive(request, player, *, own: bool):
    """The archive page of ``player``: filters from the query string, 25 games a page."""
    form = ArchiveFilterForm(request.GET or None)
    filters = {}
    status = 200
    if form.is_bound and form.is_valid():
        data = form.cleaned_data
        opponent = data["opponent"]
        # a level as the archive writes it ("Computer (Easy)", "Computer 2 (Easy)") too
        level = COMPUTER_AS_WRITTEN.fullmatch(opponent)
        key = (level.group(1) if level else opponent).lower()
        if key in ("computer", "bot", "bots"):
            filters["computer"] = True
        elif key in BOT_LEVEL_BY_KEY:
            filters["bot_level"] = BOT_LEVEL_BY_KEY[key]
        elif opponent:
            try:
                filters["opponent"] = user_get_by_username(username=opponent)
            except User.DoesNotExist:
                form.add_error("opponent", f"No player is called “{opponent}”. For the "
                               f"computer: “computer”, or a level ({LEVEL_KEYS}).")
            else:
                if filters["opponent"].pk == player.pk:
                    form.add_error("opponent", f"That is {player.public_name}, whose games "
                                   "these are: name someone they played.")
        filters.update(mode=data["mode"], result=data["result"], rated=data["rated"],
                       date_from=data["date_from"], date_to=data["date_to"])
    if form.is_bound and form.errors:
        status = 400
        games = selectors.archive_games(player=player, viewer=request.user).none()
    else:
        games = selectors.archive_games(player=player, viewer=request.user, **filters)
    paginator = Paginator(games, ARCHIVE_PAGE)
    page_error = _page_error(request.GET.get("page"), paginator.num_pages)
    if page_error:  # (any page past the last was page 1, without a word: an audit)
        status = 400
        paginator = Paginator(games.none(), ARCHIVE_PAGE)
    page = paginator.get_page(1 if page_error else request.GET.get("page"))
    changes = hooks.rating_changes([gp.game_id for gp in page.object_list])
    unrated = hooks.unrated_reasons([gp.game for gp in page.object_list])
    for gp in page.object_list:
        gp.rating_change = changes.get(gp.game_id, {}).get(player.pk)
        gp.unrated = unrated.get(gp.game_id)
        if gp.unrated is None and left_unrated(gp, changes.get(gp.game_id, {})):
            gp.unrated = LEFT_UNRATED
    query = request.GET.copy()
    query.pop("page", None)
    return render(request, "games/my_games.html", {
        "page": page, "page_error": page_error, "form": form, "player": player, "own": own,
        "query": query.urlencode(), "filtered": bool(filters) and any(filters.values()),
    }, status=status)


@require_safe
@login_required
def my_games(request):
    return _archive(request, request.user, own=True)


@require_safe
def player_games(request, username):
    try:
        player = user_get_by_username(username=username)
    except User.DoesNotExist:
        raise Http404("No such player.") from None
    if player.username != username:
        return redirect("games:player_games", username=player.username)
    own = request.user.is_authenticated and request.user.pk == player.pk
    return _archive(request, player, own=own)


def _names(game) -> list[str]:
    return [p.name for p in sorted(game.players.all(), key=lambda p: p.seat)]


# Why a counted game did not rate one of its players (the ratings app leaves out a person who
# left a game of three or four before a move of their own: leaderboards.ratings.rules).
LEFT_UNRATED = "left before a move of their own"


def left_unrated(player, changes: dict[int, int]) -> bool:
    """Whether ``player`` (a ``GamePlayer``) left a rated game that the rating left them out
    of: the others' changes are in (``changes``, by user id), theirs is not."""
    return bool(changes and player.left) and player.user_id not in changes


@require_safe
def game(request, game_id):
    game = selectors.game_for_viewer(game_id, request.user)
    if game is None:
        raise Http404("No such game.")
    # In finishing order (the list is numbered by place; ties share a number), then by seat.
    players = sorted(game.players.all(), key=lambda p: (p.place, p.seat))
    changes = hooks.rating_changes([game.pk]).get(game.pk, {})
    unrated = hooks.unrated_reasons([game]).get(game.pk)
    # Ratings belong on a game that counts: a casual game, a game with a computer or one that
    # ended before both players moved shows no "rated 1416?" (only why it is not rated).
    counts = game.rated and unrated is None
    labels = (hooks.rating_labels([p.user_id for p in players if p.user_id], game.mode)
              if counts else {})
    for p in players:
        p.rating_change = changes.get(p.user_id)
        p.rating_label = labels.get(p.user_id)
        p.not_rated = left_unrated(p, changes)
        # a person who left a game of three or four that went on without them
        p.went_on = (f"{selectors.FORFEIT_VERB.get(p.left, 'left')}, and the computer "
                     "played their seat on" if selectors.went_on_without(game, p) else "")
    ended_by = selectors.and_list(selectors.forfeiters(game, players))
    record = records.engine_record(game)
    data = None
    if record is not None:
        try:
            data = replay.replay_data(record, _names(game), records.stand_ins(game))
        except E.RecordError:  # a stored record that no longer replays: the sheet only
            data = None
    analysis = None
    if data is not None:
        analysis = selectors.analysis_state(game, request.user, current_version=ANALYSER_VERSION)
        analysis["viewer_seat"] = next((p.seat for p in players if request.user.is_authenticated
                                        and p.user_id == request.user.pk), None)
        if not request.user.is_authenticated:
            analysis["reason"] = ""  # (the page links to the sign-in instead)
    private = selectors.game_private(game)
    return for_viewer_only(render(request, "games/game.html", {
        "game": game,
        "players": players,
        "unrated": unrated,
        "left_unrated": LEFT_UNRATED,
        # (only its players see a private game: they are told it is one)
        "private": private,
        "sheet": selectors.score_sheet(game),
        "ended_by": ended_by,
        "replay": data,
        "analysis": analysis,
    }), private)


@require_safe
def game_record_json(request, game_id):
    game = selectors.game_for_viewer(game_id, request.user)
    if game is None:
        raise Http404("No such game.")
    response = HttpResponse(
        json.dumps(records.record_json(game), indent=2), content_type="application/json"
    )
    response["Content-Disposition"] = f'attachment; filename="game-{game.pk}.json"'
    return for_viewer_only(response, selectors.game_private(game))


@require_safe
def game_record_txt(request, game_id):
    game = selectors.game_for_viewer(game_id, request.user)
    if game is None:
        raise Http404("No such game.")
    response = HttpResponse(records.record_text(game), content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="game-{game.pk}.txt"'
    return for_viewer_only(response, selectors.game_private(game))
