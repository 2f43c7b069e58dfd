"""Pages and small JSON endpoints of live play: thin over services and selectors."""
from __future__ import annotations

import json

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts.models import User
from accounts.selectors import user_get_by_username
from games import engine as E
from games.bots.analysis import ANALYSER_VERSION
from games.bots.levels import LEVEL_TABLE

from . import hooks, records, replay, selectors, services
from .exceptions import AnalysisRefused, GameServiceError
from .forms import (
    RECORD_MAX_BYTES,
    AddBotForm,
    ArchiveFilterForm,
    PlayComputerForm,
    RecordImportForm,
    SitForm,
    TableCreateForm,
)
from .models import Room, TableStatus


@require_GET
def lobby(request):
    return render(request, "games/lobby.html", {
        "rooms": selectors.rooms_overview(),
        "my_tables": selectors.user_live_tables(request.user),
        "computer_form": PlayComputerForm(),
    })


@require_GET
def rooms_json(request):
    return JsonResponse({"rooms": selectors.rooms_overview()})


def _room_page(request, room, form, status=200):
    services.room_presence_mark(room=room, user=request.user)
    return render(request, "games/room.html", {
        "room": room,
        "form": form,
        "payload": selectors.room_payload(room),
        "json_url": reverse("games:room_json", kwargs={"slug": room.slug}),
    }, status=status)


@require_GET
def room(request, slug):
    room = get_object_or_404(Room, slug=slug)
    return _room_page(request, room, TableCreateForm(room=room))


@require_GET
def room_json(request, slug):
    room = get_object_or_404(Room, slug=slug)
    services.room_presence_mark(room=room, user=request.user)
    return JsonResponse(selectors.room_payload(room))


@login_required
@require_POST
def table_create(request, slug):
    room = get_object_or_404(Room, slug=slug)
    form = TableCreateForm(request.POST, room=room)
    if not form.is_valid():
        return _room_page(request, room, form, status=400)
    data = form.cleaned_data
    try:
        table = services.table_create(
            user=request.user, room=room, seat_count=data["seats"], target=data["target"],
            rated=bool(data.get("rated")), seconds_per_turn=data["seconds_per_turn"],
            private=data["private"], bot_level=data["bots"],
            rating_range=data.get("rating_range"),
        )
    except GameServiceError as exc:
        form.add_error(None, exc.message)
        return _room_page(request, room, form, status=400)
    return redirect(_table_url(table))


def _table_url(table):
    url = table.get_absolute_url()
    if table.private:
        url += f"?invite={table.invite_token}"
    return url


@login_required
@require_POST
def play_computer(request):
    form = PlayComputerForm(request.POST)
    if not form.is_valid():
        return render(request, "games/lobby.html", {
            "rooms": selectors.rooms_overview(),
            "my_tables": selectors.user_live_tables(request.user),
            "computer_form": form,
        }, status=400)
    data = form.cleaned_data
    try:
        table = services.play_computer(
            user=request.user, mode=data["mode"], level=data["level"],
            seat_count=data["seats"] or 2,
        )
    except GameServiceError as exc:
        messages.error(request, exc.message)
        return redirect("games:lobby")
    return redirect(table.get_absolute_url())


@require_GET
def table(request, table_id):
    table = selectors.table_with_seats(table_id)
    if table is None:
        raise Http404("No such table.")
    invite = request.GET.get("invite", "")
    allowed, seat = selectors.table_access(table, request.user, invite)
    if not allowed:
        return render(request, "games/table_private.html", {"table": table}, status=403)
    snapshot = selectors.table_snapshot(table.pk, request.user, seat)
    data = {
        "table_id": table.pk,
        "ws_url": f"/ws/table/{table.pk}/",
        "invite": invite if table.private else "",
        "you": {
            "username": request.user.username if request.user.is_authenticated else None,
            "authenticated": request.user.is_authenticated,
        },
        "snapshot": snapshot,
        # The computer levels, as the server names them (the add-computer menu lists these).
        "bot_levels": [[level.number, level.name] for level in LEVEL_TABLE],
        "room_url": table.room.get_absolute_url(),
        # the rules of the table's mode, linked from the score sheet (open during play)
        "rules_url": f"{reverse('rules')}#{table.mode}",
    }
    invite_link = None
    if table.private and (seat is not None or request.user.pk == table.created_by_id):
        invite_link = request.build_absolute_uri(
            f"{table.get_absolute_url()}?invite={table.invite_token}"
        )
    return render(request, "games/table.html", {
        "table": table, "seat": seat, "snapshot": snapshot, "table_data": data,
        "invite": invite, "invite_link": invite_link,
        "bot_levels": AddBotForm.base_fields["level"].choices,
    })


def _refused(request, exc: GameServiceError) -> None:
    """A table someone may not see is not found (404); any other refusal is told on the
    page the view goes back to."""
    if exc.code == "not_found":
        raise Http404(exc.message) from None
    messages.error(request, exc.message)


def _back(table_id, invite=""):
    url = reverse("games:table", kwargs={"table_id": table_id})
    return redirect(f"{url}?invite={invite}" if invite else url)


@login_required
@require_POST
def table_sit(request, table_id):
    form = SitForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Choose a seat.")
        return _back(table_id)
    invite = form.cleaned_data["invite"]
    try:
        services.table_sit(table_id=table_id, user=request.user, seat=form.cleaned_data["seat"],
                           invite=invite)
    except GameServiceError as exc:
        _refused(request, exc)
        return _back(table_id, invite)
    return _back(table_id)


@login_required
@require_POST
def table_leave(request, table_id):
    try:
        table = services.table_leave(table_id=table_id, user=request.user)
    except GameServiceError as exc:
        _refused(request, exc)
        return _back(table_id)
    messages.success(request, "You left the table.")
    return redirect(table.room.get_absolute_url())


@login_required
@require_POST
def table_close(request, table_id):
    """Close on Your tables: leave or cancel a waiting table; resign a game in progress
    (only with ``resign=yes``, the confirmation the page asks for)."""
    resign = request.POST.get("resign") == "yes"
    try:
        table = services.table_close(table_id=table_id, user=request.user, resign=resign)
    except GameServiceError as exc:
        _refused(request, exc)
        return redirect("games:lobby")
    if table.status == TableStatus.ABANDONED:
        messages.success(request, f"Table {table.pk} is closed.")
    elif table.status == TableStatus.FINISHED:
        messages.success(request, f"You resigned the game at table {table.pk}.")
    else:
        messages.success(request, f"You left table {table.pk}.")
    return redirect("games:lobby")


@login_required
@require_POST
def table_bot(request, table_id):
    form = AddBotForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Choose a seat and a level.")
        return _back(table_id)
    try:
        services.table_add_bot(table_id=table_id, user=request.user,
                               seat=form.cleaned_data["seat"], level=form.cleaned_data["level"])
    except GameServiceError as exc:
        _refused(request, exc)
    return _back(table_id)


ARCHIVE_PAGE = 25
BOT_LEVEL_BY_KEY = {level.key: level.number for level in LEVEL_TABLE}


def _archive(request, player, *, own: bool):
    """The archive page of ``player``: filters from the query string, 25 games a page."""
    form = ArchiveFilterForm(request.GET or None)
    filters = {}
    status = 200
    if form.is_bound and form.is_valid():
        data = form.cleaned_data
        opponent = data["opponent"]
        if opponent.lower() in ("computer", "bot", "bots"):
            filters["computer"] = True
        elif opponent.lower() in BOT_LEVEL_BY_KEY:
            filters["bot_level"] = BOT_LEVEL_BY_KEY[opponent.lower()]
        elif opponent:
            try:
                filters["opponent"] = user_get_by_username(username=opponent)
            except User.DoesNotExist:
                form.add_error("opponent", f"No player is called “{opponent}”.")
        filters.update(mode=data["mode"], result=data["result"], rated=data["rated"],
                       date_from=data["date_from"], date_to=data["date_to"])
    if form.is_bound and form.errors:
        status = 400
        games = selectors.archive_games(player=player, viewer=request.user).none()
    else:
        games = selectors.archive_games(player=player, viewer=request.user, **filters)
    page = Paginator(games, ARCHIVE_PAGE).get_page(request.GET.get("page"))
    changes = hooks.rating_changes([gp.game_id for gp in page.object_list])
    unrated = hooks.unrated_reasons([gp.game for gp in page.object_list])
    for gp in page.object_list:
        gp.rating_change = changes.get(gp.game_id, {}).get(player.pk)
        gp.unrated = unrated.get(gp.game_id)
    query = request.GET.copy()
    query.pop("page", None)
    return render(request, "games/my_games.html", {
        "page": page, "form": form, "player": player, "own": own,
        "query": query.urlencode(), "filtered": bool(filters) and any(filters.values()),
    }, status=status)


@require_GET
@login_required
def my_games(request):
    return _archive(request, request.user, own=True)


@require_GET
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


@require_GET
def game(request, game_id):
    game = selectors.game_for_viewer(game_id, request.user)
    if game is None:
        raise Http404("No such game.")
    players = sorted(game.players.all(), key=lambda p: p.seat)
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
    record = records.engine_record(game)
    data = None
    if record is not None:
        try:
            data = replay.replay_data(record, _names(game))
        except E.RecordError:  # a stored record that no longer replays: the sheet only
            data = None
    analysis = None
    if data is not None:
        analysis = selectors.analysis_state(game, request.user, current_version=ANALYSER_VERSION)
        analysis["viewer_seat"] = next((p.seat for p in players if request.user.is_authenticated
                                        and p.user_id == request.user.pk), None)
        if not request.user.is_authenticated:
            analysis["reason"] = ""  # (the page links to the sign-in instead)
    return render(request, "games/game.html", {
        "game": game,
        "players": players,
        "unrated": unrated,
        "sheet": selectors.score_sheet(game),
        "replay": data,
        "analysis": analysis,
    })


@require_http_methods(["GET", "POST"])
def game_import(request):
    """Upload a record file: it is replayed through the engine and shown; nothing is kept."""
    if request.method == "POST":
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        if length > 2 * RECORD_MAX_BYTES:  # refused before reading the upload
            return render(request, "games/import.html", {
                "form": RecordImportForm(),
                "upload_error": "The file is larger than 1 MB: not a game record.",
            }, status=400)
        form = RecordImportForm(request.POST, request.FILES)
        if form.is_valid():
            try:
                record, names = records.record_import(form.cleaned_data["record"])
            except records.RecordImportError as exc:
                form.add_error("record", str(exc))
            else:
                return render(request, "games/game_imported.html", {
                    "record": record, "names": names,
                    "replay": replay.replay_data(record, names),
                    "filename": request.FILES["record"].name,
                })
        return render(request, "games/import.html", {"form": form}, status=400)
    return render(request, "games/import.html", {"form": RecordImportForm()})


@require_GET
def game_record_json(request, game_id):
    game = selectors.game_for_viewer(game_id, request.user)
    if game is None:
        raise Http404("No such game.")
    response = HttpResponse(
        json.dumps(records.record_json(game), indent=2), content_type="application/json"
    )
    response["Content-Disposition"] = f'inline; filename="game-{game.pk}.json"'
    return response


@require_GET
def game_record_txt(request, game_id):
    game = selectors.game_for_viewer(game_id, request.user)
    if game is None:
        raise Http404("No such game.")
    response = HttpResponse(records.record_text(game), content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = f'inline; filename="game-{game.pk}.txt"'
    return response


# ------------------------------------------------------------------------- analysis


def _wants_json(request) -> bool:
    return "application/json" in request.headers.get("Accept", "")


@require_POST
def game_analysis_request(request, game_id):
    """"Analyse this game": queue its analysis (or join the one on its way, or answer the
    stored one). JSON for the page's script (``Accept: application/json``), else a redirect
    to the game page with a message. Refusals: 404 for a game the user may not see, 403
    signed out, 409 while the user's other analysis runs, 400 for a game with no record."""
    try:
        job = services.analysis_request(game_id=game_id, user=request.user)
    except AnalysisRefused as exc:
        if _wants_json(request):
            return JsonResponse({"ok": False, "error": {"code": exc.code, "message": exc.message}},
                                status=exc.status)
        if exc.status == 404:
            raise Http404("No such game.") from exc
        if exc.code == "sign_in":
            game_url = reverse("games:game", args=[game_id])
            return redirect(f"{reverse('account_login')}?next={game_url}")
        messages.error(request, exc.message)
        return redirect("games:game", game_id=game_id)
    if _wants_json(request):
        return JsonResponse({"ok": True, "analysis": selectors.analysis_frame(job)}, status=202)
    if job.status != "done":
        messages.success(request, "The analysis is on its way: this page shows it when it is done.")
    return redirect("games:game", game_id=game_id)


@require_GET
def game_analysis_json(request, game_id):
    """Where the analysis of a game the viewer may see stands, with the stored result
    (404 like the game page for anyone else)."""
    game = selectors.game_for_viewer(game_id, request.user)
    if game is None:
        return JsonResponse({"ok": False, "error": {"code": "not_found",
                                                    "message": "No such game."}}, status=404)
    state = selectors.analysis_state(game, request.user, current_version=ANALYSER_VERSION)
    return JsonResponse({"ok": True, **state})
