"""Pages and the live endpoint of tournaments: thin over services and selectors.

Forms post and redirect back (``next``, checked to be on this site); with
``Accept: application/json`` the answers are ``{"ok": true, ...}`` or
``{"ok": false, "error": {"code", "message"}}``.
"""
from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from core.formonce import FIELD, SENT_TWICE, Once, StillMaking, fresh_page
from core.http import login_required_post, redirect_back, wants_json

from . import frames, selectors, services
from .forms import TournamentCreateForm
from .models import Status, Tournament

STATUS = {"not_found": 404, "not_allowed": 403}


def _back(request, t: Tournament):
    return redirect_back(request, services.invite_url(t) if t.private else t.get_absolute_url())


def _json_error(exc: services.TournamentError) -> JsonResponse:
    return JsonResponse({"ok": False, "error": {"code": exc.code, "message": exc.message}},
                        status=STATUS.get(exc.code, 400))


def _error(request, t: Tournament | None, exc: services.TournamentError):
    if wants_json(request):
        return _json_error(exc)
    messages.error(request, exc.message)
    if t is None:
        return redirect("leaderboards:tournaments")
    return _back(request, t)


PRIVATE_STARTED = ("This private tournament has started: its games and standings are for its "
                   "players alone.")


class LinkTooLate(Exception):
    """A private tournament's link, after its start: it no longer opens the tournament."""


def _visible(request, tournament_id: int) -> Tournament:
    t = get_object_or_404(Tournament, pk=tournament_id)
    invite = request.GET.get("invite", "") or request.POST.get("invite", "")
    if not selectors.may_view(t, request.user, invite):
        if selectors.link_too_late(t, invite):  # (its link told them of it: say why)
            raise LinkTooLate()
        raise Http404("There is no such tournament.")
    return t


@require_safe
def tournament_list(request):
    return render(request, "tournaments/list.html", {
        **selectors.tournament_lists(request.user),
        "can_create": services.can_create(request.user),
        "min_rated_games": services.min_rated_games(),
        "rated_count": services.rated_games(request.user),
    })


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def tournament_new(request):
    allowed = services.can_create(request.user)
    form = TournamentCreateForm(request.POST or None)
    if request.method == "POST" and allowed and form.is_valid():
        fields = {k: v for k, v in form.cleaned_data.items() if k != FIELD}
        try:
            made = Once(request.user, form).make(
                lambda: services.tournament_create(user=request.user, **fields),
                services.invite_url)
        except StillMaking as exc:
            form.add_error(None, exc.message)
            return _new_page(request, form, allowed, status=409)
        except services.TournamentError as exc:
            form.add_error(None, exc.message)
        else:
            if made.repeated:
                messages.info(request, SENT_TWICE.format(what="tournament"))
            else:
                messages.success(request, "Your tournament is open for entries.")
            return redirect(made.url)
    status = 200 if request.method != "POST" else 400
    if not allowed:
        status = 403 if request.method == "POST" else 200
    return _new_page(request, form, allowed, status=status)


def _new_page(request, form: TournamentCreateForm, allowed: bool, *, status: int):
    return fresh_page(render(request, "tournaments/new.html", {
        "form": form, "allowed": allowed, "min_rated_games": services.min_rated_games(),
        "rated_count": services.rated_games(request.user),
    }, status=status))


def _page_context(request, t: Tournament) -> dict:
    data = selectors.page_data(t, request.user)
    invite = request.GET.get("invite", "")
    return {
        **data,
        # Forms on the live part come back to the page (also when drawn by the live endpoint).
        "page_path": services.invite_url(t) if t.private and invite == t.invite_token
        else t.get_absolute_url(),
        "invite": invite if t.private else "",
        # (its creator's to share while it takes entries: after the start it opens nothing)
        "invite_link": (request.build_absolute_uri(services.invite_url(t))
                        if t.private and t.status == Status.SCHEDULED
                        and request.user.is_authenticated
                        and request.user.pk == t.created_by_id else ""),
        # (a visitor is asked to log in only where entering is possible now)
        "entry_refusal": (services.entry_refusal(t, request.user, invite)
                          if request.user.is_authenticated
                          else services.entry_window_refusal(t)),
        "can_cancel": request.user.is_authenticated and (
            request.user.is_staff
            or (request.user.pk == t.created_by_id and t.status == "scheduled")
        ) and t.status in ("scheduled", "running"),
    }


@require_safe
def tournament_detail(request, tournament_id: int):
    try:
        t = _visible(request, tournament_id)
    except LinkTooLate:
        return render(request, "tournaments/private_started.html", status=403)
    return render(request, "tournaments/detail.html", _page_context(request, t))


@require_safe
def tournament_live(request, tournament_id: int):
    """``{"version", "status"}``, plus ``html`` (the page's live part) when ``?v=`` is older;
    JSON whatever the answer (a missing tournament was the HTML error page)."""
    try:
        t = _visible(request, tournament_id)
    except Http404:
        return _json_error(services.NotFound("There is no such tournament."))
    except LinkTooLate:
        return _json_error(services.NotAllowed(PRIVATE_STARTED))
    state = frames.live_state(t)
    try:
        known = int(request.GET.get("v", "0"))
    except ValueError:
        known = 0
    if known != t.version:
        state["html"] = render_to_string("tournaments/_live.html", _page_context(request, t),
                                         request=request)
    return JsonResponse(state)


def _act(request, tournament_id: int, write, done: str, **fields):
    """A player's or host's write on a tournament they can see,
    ``write(tournament_id=, user=, **fields)``, answered the one way every form here is: JSON
    ``{"ok": true}`` or the message ``done`` (``{name}``: the tournament's) and the way back;
    a refusal through ``_error`` (a tournament missing, or private without its invite, is
    ``not_found`` in JSON too)."""
    try:
        t = _visible(request, tournament_id)
    except Http404:
        if not wants_json(request):
            raise
        return _error(request, None, services.NotFound("There is no such tournament."))
    except LinkTooLate:
        return _error(request, None, services.NotAllowed(PRIVATE_STARTED))
    try:
        write(tournament_id=t.pk, user=request.user, **fields)
    except services.TournamentError as exc:
        return _error(request, t, exc)
    if wants_json(request):
        return JsonResponse({"ok": True})
    messages.success(request, done.format(name=t.name))
    return _back(request, t)


@login_required_post
@require_POST
def tournament_enter(request, tournament_id: int):
    return _act(request, tournament_id, services.tournament_enter, "You are in {name}.",
                invite=request.POST.get("invite", ""))


@login_required_post
@require_POST
def tournament_withdraw(request, tournament_id: int):
    return _act(request, tournament_id, services.tournament_withdraw,
                "You have withdrawn from {name}.")


@login_required_post
@require_POST
def tournament_cancel(request, tournament_id: int):
    return _act(request, tournament_id, services.tournament_cancel, "{name} is cancelled.",
                reason=request.POST.get("reason", ""))
