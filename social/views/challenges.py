"""Challenges: the page and forms for people (session), and the bot API (token, scope
``bot:play``; docs/bot-api.md, "Challenges"). Parse, check, call a service, translate errors.
"""
from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponseRedirect, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from accounts.api import ApiError, api_endpoint, error_response, json_object_body
from core.http import login_required_post

from .. import frames, selectors, services, tables
from .answers import STATUS, active_user, answer

JUST_ACCEPTED_SECONDS = 120
API_STATUS = {**STATUS, "not_bot": 403, "too_many_challenges": 429, "answered": 409,
              "expired": 410, "table_unavailable": 409}


def _bad(detail: str) -> ApiError:
    """A field of the request that is missing or of the wrong type: 400 ``bad_request``."""
    return ApiError(400, "bad_request", detail)


# --- reading what a client sent ---------------------------------------------------------------

def _form_number(value: object, digits: int) -> object:
    """A form's number: ``int`` of up to ``digits`` ASCII digits (``str.isdigit`` took "²",
    which ``int`` refuses: a 500), else the value as sent, for the type check to refuse."""
    if isinstance(value, int):  # (a default)
        return value
    if isinstance(value, str) and re.fullmatch(f"[0-9]{{1,{digits}}}", value):
        return int(value)
    return value


def _settings(data, *, form: bool = False) -> dict[str, Any]:
    """The game settings of a challenge, checked for type only (the service checks the
    rules): from a JSON object (numbers and booleans as JSON has them), or from a form
    (``form``: numbers as text, ``rated`` as a checkbox). A refusal names the API's fields to
    a program, and the form's labels to a person."""
    mode = data.get("mode")
    choices = tables.mode_choices()
    modes = [key for key, _ in choices]
    if not isinstance(mode, str) or mode not in modes:
        raise _bad(f"Choose a game: {', '.join(str(name) for _, name in choices)}." if form
                   else f'"mode" must be one of {", ".join(modes)}.')
    target, seconds = data.get("target"), data.get("seconds_per_turn", 30)
    rated = data.get("rated", False)
    if form:
        target = _form_number(target, 4) if target else None
        seconds = _form_number(seconds, 3)
        rated = rated == "on"
    if target is not None and (not isinstance(target, int) or isinstance(target, bool)):
        raise _bad("The target score is a whole number from 50 to 500, or empty." if form
                   else '"target" must be a whole number from 50 to 500, or null.')
    if not isinstance(seconds, int) or isinstance(seconds, bool) \
            or seconds not in services.CHALLENGE_TURN_SECONDS:
        raise _bad("The time per turn is 15, 30 or 60 seconds." if form
                   else '"seconds_per_turn" must be 15, 30 or 60.')
    if not isinstance(rated, bool):
        raise _bad('"rated" must be true or false.')
    return {"mode": mode, "target": target, "seconds_per_turn": seconds, "rated": rated}


def _api_refusal(exc: Exception) -> JsonResponse:
    if isinstance(exc, ApiError):
        return error_response(exc)
    assert isinstance(exc, services.SocialError)
    retry = getattr(getattr(exc, "verdict", None), "retry_after", None)
    return error_response(ApiError(API_STATUS.get(exc.code, 400), exc.code, str(exc),
                                   retry_after=retry))


def _challenge_answer(challenge, status: int = 200) -> JsonResponse:
    return JsonResponse({"challenge": frames.challenge_frame(challenge)}, status=status)


# --- the bot API ------------------------------------------------------------------------------

@require_http_methods(["GET", "HEAD", "POST"])
@api_endpoint("bot:play")
def api_challenges(request: HttpRequest) -> JsonResponse:
    """``GET``: the bot's open challenges; ``POST``: challenge someone."""
    if request.method != "POST":  # (GET, or HEAD: answered as GET)
        incoming, outgoing = selectors.challenges_pending(request.user)
        return JsonResponse({"incoming": [frames.challenge_frame(c) for c in incoming],
                             "outgoing": [frames.challenge_frame(c) for c in outgoing]})
    try:
        data = json_object_body(request)
        to = data.get("to")
        if not isinstance(to, str) or not 0 < len(to) <= 150:
            raise _bad('"to" must be the username of the player to challenge.')
        settings = _settings(data)
        recipient = get_user_model().objects.filter(username=to, is_active=True).first()
        if recipient is None:
            raise services.NotFound("There is no such player.")
        challenge = services.challenge_send(sender=request.user, recipient=recipient,
                                            **settings)
    except (ApiError, services.SocialError) as exc:
        return _api_refusal(exc)
    return _challenge_answer(challenge, 201)


def _api_answer(service):
    @require_POST
    @api_endpoint("bot:play")
    def view(request: HttpRequest, challenge_id: int) -> JsonResponse:
        try:
            challenge = service(user=request.user, challenge_id=challenge_id)
        except services.SocialError as exc:
            return _api_refusal(exc)
        return _challenge_answer(challenge)

    view.__name__ = f"api_{service.__name__}"
    return view


api_challenge_accept = _api_answer(services.challenge_accept)
api_challenge_decline = _api_answer(services.challenge_decline)
api_challenge_cancel = _api_answer(services.challenge_cancel)


# --- the page and forms for people ------------------------------------------------------------

@login_required
@require_safe
def challenges(request: HttpRequest):
    services.challenges_expire(user_ids=[request.user.pk])
    incoming, outgoing = selectors.challenges_pending(request.user)
    recent = selectors.challenges_recent(request.user)
    # Accepted while this page was loading (a bot answers within moments, before the page's
    # socket could hear it): shown at the top, with the way to the table.
    just = timezone.now() - timedelta(seconds=JUST_ACCEPTED_SECONDS)
    return render(request, "social/challenges.html", {
        "incoming": incoming, "outgoing": outgoing, "recent": recent,
        "just_accepted": [c for c in recent if c.status == "accepted" and c.table_id
                          and c.from_user_id == request.user.pk and c.responded_at
                          and c.responded_at >= just],
    })


@login_required_post
@require_POST
def challenge_send(request: HttpRequest, username: str):
    other = active_user(username)
    back = reverse("social:challenges")
    try:
        challenge = services.challenge_send(sender=request.user, recipient=other,
                                            **_settings(request.POST, form=True))
    except ApiError as exc:
        return answer(request, back, error=services.SocialError(exc.detail, "invalid_settings"))
    except services.SocialError as exc:
        return answer(request, back, error=exc)
    return answer(request, back, ok_text=f"Challenge sent to {other.public_name}.",
                  data={"challenge": frames.challenge_frame(challenge)})


@login_required_post
@require_POST
def challenge_accept(request: HttpRequest, challenge_id: int):
    try:
        challenge = services.challenge_accept(user=request.user, challenge_id=challenge_id)
    except services.SocialError as exc:
        return answer(request, reverse("social:challenges"), error=exc)
    url = frames.challenge_frame(challenge)["table"]["url"]
    if "application/json" in request.headers.get("Accept", ""):
        return JsonResponse({"ok": True, "url": url})
    return HttpResponseRedirect(url)


def _form_answer(service, ok_text: str):
    @login_required_post
    @require_POST
    def view(request: HttpRequest, challenge_id: int):
        try:
            service(user=request.user, challenge_id=challenge_id)
        except services.SocialError as exc:
            return answer(request, reverse("social:challenges"), error=exc)
        return answer(request, reverse("social:challenges"), ok_text=ok_text)

    view.__name__ = service.__name__
    return view


challenge_decline = _form_answer(services.challenge_decline, "Challenge declined.")
challenge_cancel = _form_answer(services.challenge_cancel, "Challenge cancelled.")
