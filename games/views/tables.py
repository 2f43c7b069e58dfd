"""Pages and small JSON endpoints of live play (lobby, rooms, tables): thin over services
and selectors."""
from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpResponseBadRequest, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.views.decorators.http import require_POST, require_safe

from core.formonce import SENT_TWICE, Once, StillMaking, fresh_page
from core.http import for_viewer_only, is_form, login_required_post, redirect_back
from games.bots.levels import LEVEL_TABLE

from .. import conf, selectors, services
from ..exceptions import BotSessionRefused, GameServiceError
from ..forms import (
    AddBotForm,
    PlayComputerForm,
    RoomFilterForm,
    SitForm,
    TableCreateForm,
)
from ..models import Room, TableStatus


@require_safe
def lobby(request):
    return _lobby_page(request, PlayComputerForm())


def _lobby_page(request, form: PlayComputerForm, status: int = 200):
    return fresh_page(render(request, "games/lobby.html", {
        "rooms": selectors.rooms_overview(request.user),
        "my_tables": selectors.user_live_tables(request.user),
        "computer_form": form,
    }, status=status))


@require_safe
def rooms_json(request):
    return JsonResponse({"rooms": selectors.rooms_overview(request.user)})


ROOM_EMPTY = {  # what an empty list of the room says (lobby.js reads them off the page)
    "open": "No table is waiting. Create one below.",
    "open_filtered": "No waiting table matches these filters.",
    "playing": "No game in progress.",
    "playing_filtered": "No game in progress matches these filters.",
}


def _room_filters(request, room) -> RoomFilterForm:
    """The room's filter form, bound to the query when it names a filter."""
    named = any(k in request.GET for k in ("rated", "time", "seats"))
    return RoomFilterForm(request.GET if named else None, room=room)


def _room_page(request, room, form, status=200, filters=None):
    services.room_presence_mark(room=room, user=request.user)
    filters = filters or RoomFilterForm(room=room)
    if filters.is_bound and not filters.is_valid():
        status = 400
    json_url = reverse("games:room_json", kwargs={"slug": room.slug})
    chosen = filters.chosen()
    return fresh_page(render(request, "games/room.html", {
        "room": room,
        "form": form,
        "filters": filters,
        "empty": ROOM_EMPTY,
        "open_empty": ROOM_EMPTY["open_filtered" if chosen else "open"],
        "playing_empty": ROOM_EMPTY["playing_filtered" if chosen else "playing"],
        "payload": selectors.room_payload(room, chosen, request.user),
        "json_url": json_url,
    }, status=status))


@require_safe
def room(request, slug):
    room = get_object_or_404(Room, slug=slug)
    return _room_page(request, room, TableCreateForm(room=room),
                      filters=_room_filters(request, room))


@require_safe
def room_json(request, slug):
    room = get_object_or_404(Room, slug=slug)
    filters = _room_filters(request, room)
    if filters.is_bound and not filters.is_valid():
        return JsonResponse({"error": "bad_filter", "fields": {
            name: [str(e) for e in errors] for name, errors in filters.errors.items()}},
            status=400)
    services.room_presence_mark(room=room, user=request.user)
    return JsonResponse(selectors.room_payload(room, filters.chosen(), request.user))


@login_required_post
@require_POST
def table_create(request, slug):
    room = get_object_or_404(Room, slug=slug)
    form = TableCreateForm(request.POST, room=room)
    if not form.is_valid():
        return _room_page(request, room, form, status=400)
    data = form.cleaned_data
    try:
        made = Once(request.user, form).make(lambda: services.table_create(
            user=request.user, room=room, seat_count=data["seats"], target=data["target"],
            rated=bool(data.get("rated")), seconds_per_turn=data["seconds_per_turn"],
            private=data["private"], bot_level=data["bots"],
            rating_range=data.get("rating_range"),
        ), _table_url)
    except StillMaking as exc:
        form.add_error(None, exc.message)
        return _room_page(request, room, form, status=409)
    except GameServiceError as exc:
        form.add_error(None, exc.message)
        return _room_page(request, room, form, status=400)
    return _made(request, made, "table")


def _made(request, made, what: str):
    """The page of what a create form made; a second sending is told it was one."""
    if made.repeated:
        messages.info(request, SENT_TWICE.format(what=what))
    return redirect(made.url)


@login_required_post
@require_POST
def table_quick(request, slug):
    """Play now: a seat at the first waiting table that fits the room's filters, or a new one
    (``services.table_quick``)."""
    room = get_object_or_404(Room, slug=slug)
    if not is_form(request):
        return HttpResponseBadRequest("Play now takes the room's form.",
                                      content_type="text/plain; charset=utf-8")
    filters = RoomFilterForm(request.POST, room=room)
    if not filters.is_valid():
        return _room_page(request, room, TableCreateForm(room=room), status=400,
                          filters=filters)
    chosen = filters.filters()
    try:
        table, joined = services.table_quick(
            user=request.user, room=room, rated=chosen["rated"],
            seconds_per_turn=chosen["seconds_per_turn"], seat_count=chosen["seat_count"])
    except GameServiceError as exc:
        messages.error(request, exc.message)
        query = urlencode({k: v for k, v in filters.cleaned_data.items() if v})
        return redirect(room.get_absolute_url() + (f"?{query}" if query else ""))
    if not joined:
        # (both say why the game has not started: the table takes them away when it does)
        messages.info(request, "Nobody was waiting for such a game: this table is yours, and "
                               "the room lists it for the next player.", extra_tags=UNTIL_START)
    elif table.vacated:
        messages.info(request, gone_note(table.vacated), extra_tags=UNTIL_START)
    return redirect(_table_url(table))


# A note that holds until the table's game starts (base.html marks it, the table app removes
# it: "this table is yours" stood above a game dealt and played, an audit).
UNTIL_START = "until-start"


def gone_note(names) -> str:
    """What a player reads who took the seat that would have started a game against people
    who had gone (``services.table_sit``'s ``vacated``)."""
    gone = selectors.and_list(list(names))
    return (f"{gone} had left this table, so the game has not started: it waits for new "
            "players, and starts when every seat is taken.")


def _table_url(table):
    url = table.get_absolute_url()
    if table.private:
        url += f"?invite={table.invite_token}"
    return url


@login_required_post
@require_POST
def play_computer(request):
    form = PlayComputerForm(request.POST)
    if not form.is_valid():
        return _lobby_page(request, form, status=400)
    data = form.cleaned_data
    try:
        made = Once(request.user, form).make(lambda: services.play_computer(
            user=request.user, mode=data["mode"], level=data["level"],
            seat_count=data["seats"] or 2,
        ), lambda table: table.get_absolute_url())
    except StillMaking as exc:
        form.add_error(None, exc.message)
        return _lobby_page(request, form, status=409)
    except GameServiceError as exc:
        messages.error(request, exc.message)
        return redirect("games:lobby")
    return _made(request, made, "game")


@require_safe
def table(request, table_id):
    table = selectors.table_with_seats(table_id)
    invite = request.GET.get("invite", "")
    allowed, seat = selectors.table_access(table, request.user, invite) if table else (False, None)
    if not allowed:
        if table is not None and selectors.invite_too_late(table, invite):
            # its link told them of it: say why it no longer opens
            return render(request, "games/table_private_started.html", status=403)
        # a private table without its link answers exactly as a table that never was: the
        # page must not tell strangers which private tables exist or how many
        return render(request, "games/table_missing.html", status=404)
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
        # timeouts in a row that lose the game (the table warns before the last)
        "max_timeouts": conf.get("MAX_TIMEOUTS"),
        # the rules of the table's mode, linked from the score sheet (open during play)
        "rules_url": f"{reverse('rules')}#{table.mode}",
    }
    sign_in = None
    if not request.user.is_authenticated and table.status == TableStatus.OPEN:
        # a visitor who followed a link (an invite link, say) comes back here to sit down
        back = urlencode({"next": request.get_full_path()})
        sign_in = {"login": f"{reverse('account_login')}?{back}",
                   "signup": f"{reverse('account_signup')}?{back}"}
        data["sign_in"] = sign_in
    invite_link = None
    if table.private and (seat is not None or request.user.pk == table.created_by_id):
        invite_link = request.build_absolute_uri(
            f"{table.get_absolute_url()}?invite={table.invite_token}"
        )
    return for_viewer_only(render(request, "games/table.html", {
        "table": table, "seat": seat, "snapshot": snapshot, "table_data": data,
        "invite": invite, "invite_link": invite_link, "sign_in": sign_in,
        "bot_levels": AddBotForm.base_fields["level"].choices,
    }), table.private)


def _site_player(request) -> None:
    """A bot account's session plays nothing from the site (it watches; docs/bot-api.md)."""
    if request.user.is_bot:
        raise BotSessionRefused()


def _refused(request, exc: GameServiceError) -> None:
    """A table someone may not see is not found (404); any other refusal is told on the
    page the view goes back to."""
    if exc.code == "not_found":
        raise Http404(exc.message) from None
    messages.error(request, exc.message)


def _bad_form(message: str):
    """A table action's form that is not one (400, nothing changed): its buttons never send
    such a form, so there is no page to show it on."""
    return HttpResponseBadRequest(message, content_type="text/plain; charset=utf-8")


def _back(table_id, invite=""):
    url = reverse("games:table", kwargs={"table_id": table_id})
    return redirect(f"{url}?invite={invite}" if invite else url)


@login_required_post
@require_POST
def table_sit(request, table_id):
    form = SitForm(request.POST)
    if not form.is_valid():  # (the page's buttons send a seat that is: a hand-made post)
        return _bad_form("Choose a seat.")
    invite = form.cleaned_data["invite"]
    try:
        table = services.table_sit(table_id=table_id, user=request.user,
                                   seat=form.cleaned_data["seat"], invite=invite)
    except GameServiceError as exc:
        _refused(request, exc)
        return _back(table_id, invite)
    if table.vacated:
        messages.info(request, gone_note(table.vacated), extra_tags=UNTIL_START)
    return _back(table_id)


@login_required_post
@require_POST
def table_leave(request, table_id):
    try:
        _site_player(request)
        table = services.table_leave(table_id=table_id, user=request.user)
    except GameServiceError as exc:
        _refused(request, exc)
        return _back(table_id)
    messages.success(request, "You left the table.")
    return redirect(table.room.get_absolute_url())


@login_required_post
@require_POST
def table_close(request, table_id):
    """Close on Your tables: leave or cancel a waiting table; resign a game in progress
    (only with ``resign=yes``, the confirmation the page asks for)."""
    resign = request.POST.get("resign") == "yes"
    try:
        _site_player(request)
        table = services.table_close(table_id=table_id, user=request.user, resign=resign)
    except GameServiceError as exc:
        _refused(request, exc)
        return redirect_back(request, reverse("games:lobby"))
    if table.status == TableStatus.ABANDONED:
        messages.success(request, f"Table {table.pk} is closed.")
    elif table.status == TableStatus.FINISHED:
        messages.success(request, f"You resigned the game at table {table.pk}.")
    else:
        messages.success(request, f"You left table {table.pk}.")
    # back to the page of the list (the Play page or the home page)
    return redirect_back(request, reverse("games:lobby"))


@login_required_post
@require_POST
def table_bot(request, table_id):
    form = AddBotForm(request.POST)
    if not form.is_valid():
        return _bad_form("Choose a seat and a level.")
    try:
        _site_player(request)
        services.table_add_bot(table_id=table_id, user=request.user,
                               seat=form.cleaned_data["seat"], level=form.cleaned_data["level"])
    except GameServiceError as exc:
        _refused(request, exc)
    return _back(table_id)
