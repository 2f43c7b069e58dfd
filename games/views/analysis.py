"""Post-game analysis: the request and its state (docs/analysis.md)."""
from __future__ import annotations

from django.contrib import messages
from django.http import Http404, JsonResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_POST, require_safe

from core.http import for_viewer_only, wants_json
from games.bots.analysis import ANALYSER_VERSION

from .. import selectors, services
from ..exceptions import AnalysisRefused

# ------------------------------------------------------------------------- analysis


def analysis_answer(request, ask, *, page: str, not_found: str, signed_out: str | None = None):
    """The answer to an "Analyse this game" request, of a game or of an imported record:
    ``ask()`` queues it (or finds it queued or stored) or raises ``AnalysisRefused``. JSON for
    the page's script (202 with the analysis frame, or the refusal's status and code), else a
    redirect to ``page`` with a message (``signed_out``: where a signed-out person is sent)."""
    try:
        job = ask()
    except AnalysisRefused as exc:
        if wants_json(request):
            return JsonResponse({"ok": False, "error": {"code": exc.code, "message": exc.message}},
                                status=exc.status)
        if exc.status == 404:
            raise Http404(not_found) from exc
        if exc.code == "sign_in" and signed_out:
            return redirect(signed_out)
        messages.error(request, exc.message)
        return redirect(page)
    if wants_json(request):
        return JsonResponse({"ok": True, "analysis": selectors.analysis_frame(job)}, status=202)
    if job.status != "done":
        messages.success(request, "The analysis is on its way: this page shows it when it is done.")
    return redirect(page)


@require_POST
def game_analysis_request(request, game_id):
    """"Analyse this game": queue its analysis (or join the one on its way, or answer the
    stored one). JSON for the page's script (``Accept: application/json``), else a redirect
    to the game page with a message. Refusals: 404 for a game the user may not see, 403
    signed out, 409 while the user's other analysis runs, 400 for a game with no record."""
    game_url = reverse("games:game", args=[game_id])
    return analysis_answer(
        request, lambda: services.analysis_request(game_id=game_id, user=request.user),
        page=game_url, not_found="No such game.",
        signed_out=f"{reverse('account_login')}?next={game_url}")


@require_safe
def game_analysis_json(request, game_id):
    """Where the analysis of a game the viewer may see stands, with the stored result
    (404 like the game page for anyone else)."""
    game = selectors.game_for_viewer(game_id, request.user)
    if game is None:
        return JsonResponse({"ok": False, "error": {"code": "not_found",
                                                    "message": "No such game."}}, status=404)
    state = selectors.analysis_state(game, request.user, current_version=ANALYSER_VERSION)
    return for_viewer_only(JsonResponse({"ok": True, **state}), selectors.game_private(game))
