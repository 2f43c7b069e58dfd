"""Answers every app's views give the same way."""
from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import render, resolve_url
from django.utils.cache import patch_cache_control
from django.utils.http import url_has_allowed_host_and_scheme


def redirect_back(request: HttpRequest, default: str) -> HttpResponseRedirect:
    """Redirect to the form's ``next`` (or the query's) when it is a page of this site, else
    to ``default``. ``next`` is taken as an address only: a word is not looked up as a URL
    name (``redirect("x")`` would try to reverse it and fail with a 500)."""
    target = request.POST.get("next") or request.GET.get("next")
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return HttpResponseRedirect(target)
    return HttpResponseRedirect(default)


def for_viewer_only(response: HttpResponse, private: bool = True) -> HttpResponse:
    """``Cache-Control: private`` on an answer for its viewer alone (a private game's page or
    record, an imported record): no shared cache may keep it (they went out with only
    ``Vary: Cookie``)."""
    if private:
        patch_cache_control(response, private=True)
    return response


def page_before(request: HttpRequest) -> str:
    """The page of this site the request came from (its ``Referer``, path and query), or the
    site's root: never the log-in page, nor an address of another site."""
    referer = request.headers.get("Referer", "")
    if referer and url_has_allowed_host_and_scheme(
        referer, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        parts = urlsplit(referer)
        if not parts.path.startswith(resolve_url(settings.LOGIN_URL)):
            return parts.path + (f"?{parts.query}" if parts.query else "")
    return "/"


def login_required_post(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """``login_required`` for a view that takes only POST: a signed-out visitor logs in and
    comes back to the page the form was on, not to the POST-only address (which answered
    "405 This address is not a page" once they had logged in: a session lapsed in another
    tab, then "Start a game")."""
    @wraps(view)
    def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if request.user.is_authenticated:
            return view(request, *args, **kwargs)
        return redirect_to_login(page_before(request))
    return wrapped


FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")


def is_form(request: HttpRequest) -> bool:
    """Was the body sent as a form? A JSON body (or none typed) reads as an empty form, which
    a form whose fields are all optional would take for "nothing chosen"."""
    return request.content_type in FORM_TYPES


CSRF_MESSAGE = "The page's security token was missing or old: reload the page and try again."


def wants_json(request: HttpRequest) -> bool:
    return "application/json" in request.headers.get("Accept", "")


def json_refusal(status: int, code: str, message: str) -> JsonResponse:
    """The site's JSON refusal (docs/protocol.md): ``{"ok": false, "error": {code, message}}``."""
    return JsonResponse({"ok": False, "error": {"code": code, "message": message}},
                        status=status)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """``CSRF_FAILURE_VIEW``: a script that asks for JSON gets the site's JSON refusal (403
    ``csrf``), as every other refusal; a form gets the site's own page, which says what to
    do and links back to the page the form was on (Django's read "More information is
    available with DEBUG=True"). Nothing was changed either way."""
    if wants_json(request):
        return json_refusal(403, "csrf", CSRF_MESSAGE)
    back = request.headers.get("Referer", "")
    if not url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()},
                                           require_https=request.is_secure()):
        back = ""
    return render(request, "403_csrf.html", {"message": CSRF_MESSAGE, "back": back},
                  status=403)
