"""What every social endpoint shares: the user named in the URL, numbers in the query, and
the one way of answering.

Every endpoint works as a plain form POST (redirect with a flash message) and, when the
client asks for JSON (``Accept: application/json``), answers JSON for the page scripts. A
:class:`social.services.SocialError` becomes a 4xx with its code and message, never a 500.
"""
from __future__ import annotations

import re

from django.contrib import messages as flash
from django.http import Http404, JsonResponse
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.views.decorators.http import require_POST

from accounts.selectors import user_list_active
from core.http import login_required_post, redirect_back, wants_json
from core.sockets import INT_MAX
from core.urlids import IdConverter

from .. import services

STATUS = {
    "not_found": 404,
    "rate_limited": 429,
    "not_allowed": 403,
    "not_contacts": 403,
    "self": 400,
    "busy": 409,  # (their tournament match is in play: the invitation or challenge stays)
}


def active_user(username: str):
    return get_object_or_404(user_list_active(), username=username)


def active_user_or_none(username: str):
    """The active user named ``username``, or None (a form's choice that is missing)."""
    return user_list_active().filter(username=username).first() if username else None


def answer(request, default_url: str, *, ok_text: str = "", error=None, data=None):
    """The common answer of a POST endpoint: JSON for scripts, redirect + flash for forms."""
    if error is not None:
        status = STATUS.get(error.code, 400)
        if wants_json(request):
            return JsonResponse(
                {"ok": False, "error": {"code": error.code, "message": str(error)}}, status=status
            )
        if status == 404:
            raise Http404(str(error))
        flash.error(request, str(error))
        return redirect_back(request, default_url)
    if wants_json(request):
        return JsonResponse({"ok": True, **(data or {})})
    if ok_text:
        flash.success(request, ok_text)
    return redirect_back(request, default_url)


def int_param(value):
    """A form's choice of id (a table in a select), None when there is none to read: the
    form then answers "Choose ..." itself."""
    try:
        number = int(value)
    except (TypeError, ValueError):
        return None
    return number if 0 < number <= INT_MAX else None


def id_param(value: str | None, name: str) -> int | None:
    """An optional id in a request (``before``, ``up_to``): None when absent or empty, the
    number when it is one a database id can be (1 to 2^63 - 1), else ``SocialError`` naming
    the parameter. A bad one had read as absent: ``up_to=abc`` marked the whole conversation
    read, where the socket's ``read`` frame refuses it and changes nothing."""
    if value is None or value == "":
        return None
    # the digits a database id has in a URL (``<id:...>``): 1 to 18, ASCII
    number = int(value) if re.fullmatch(IdConverter.regex, value) else 0
    if not 0 < number <= INT_MAX:
        raise services.SocialError(f'"{name}" must be a message id (a whole number).',
                                   code="bad_request")
    return number


def action_view(service, url_name: str, ok_text: str, *, person: str = ""):
    """A POST endpoint that calls ``service(user=..., **the URL's ids)`` and answers with
    ``ok_text`` or the refusal; forms return to ``url_name``. With ``person``, the URL's
    ``username`` is the active user passed to the service under that name, and ``{name}`` in
    ``ok_text`` is their public name."""

    @login_required_post
    @require_POST
    def view(request, **ids):
        name = ""
        if person:
            other = active_user(ids.pop("username"))
            ids[person], name = other, other.public_name
        try:
            service(user=request.user, **ids)
        except services.SocialError as exc:
            return answer(request, reverse(url_name), error=exc)
        return answer(request, reverse(url_name), ok_text=ok_text.format(name=name))

    return view
