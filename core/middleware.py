"""Middleware every app's pages pass through: NUL characters and unreadable forms refused,
pages compressed, the API's 404s and 405s in JSON, a 405 to a person as a page."""
from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.conf import settings
from django.core.exceptions import (
    BadRequest,
    RequestDataTooBig,
    TooManyFieldsSent,
    TooManyFilesSent,
)
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.http.multipartparser import MultiPartParserError
from django.middleware.gzip import GZipMiddleware
from django.shortcuts import render, resolve_url
from django.utils.deprecation import MiddlewareMixin

from .http import json_refusal, wants_json

NUL = "\x00"
NUL_MESSAGE = "The request holds a NUL character, which nothing on this site accepts."


def has_nul(request: HttpRequest) -> bool:
    """Is there a NUL character in the path, a query parameter or a form field (names
    included)? No field of the site takes one, and PostgreSQL refuses it in any text column,
    so a view that looked one up would fail with a 500 instead of a refusal. (Reading the
    form can raise what :func:`unreadable` names.)"""
    if NUL in request.path_info:
        return True
    fields = [request.GET]
    if request.method == "POST":
        fields.append(request.POST)
    return any(NUL in key or any(NUL in value for value in values)
               for data in fields for key, values in data.lists())


def unreadable(exc: Exception) -> tuple[int, str, str]:
    """``(status, code, message)`` for a request Django would not read: a form over
    ``DATA_UPLOAD_MAX_MEMORY_SIZE``, too many fields, a broken multipart upload, or a form
    in another charset than UTF-8. Django's own answer was a bare "Bad Request (400)", with a
    traceback in the log each time (for the charset, a 500: its 400 page read the form
    again)."""
    if isinstance(exc, RequestDataTooBig):
        return 413, "too_large", "The request is too large."
    if isinstance(exc, TooManyFieldsSent | TooManyFilesSent):
        return 400, "bad_request", "The form has too many fields."
    return 400, "bad_request", "The form could not be read."


UNREADABLE = (RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent, MultiPartParserError,
              BadRequest)


def _refusal(request: HttpRequest, status: int = 400, code: str = "bad_request",
             message: str = NUL_MESSAGE) -> HttpResponse | None:
    """A refusal in the shape the asker reads: the bot API's errors, the site's JSON answers;
    None for a page, which the rest of the middleware builds (``core.refused_page``)."""
    if request.path_info.startswith("/api/"):
        return JsonResponse({"error": code, "detail": message}, status=status)
    if wants_json(request):
        return json_refusal(status, code, message)
    # a page's form: the site's own page, in its layout (it was bare text), as any page: its
    # navigation for the person signed in, its CSRF cookie (the page's Log out answered 403
    # when the page was built here, before the CSRF middleware), its security headers
    request.refused = (status, code, message)  # type: ignore[attr-defined]
    request.urlconf = "core.refused_page"  # type: ignore[attr-defined]
    return None


def _problem(request: HttpRequest) -> tuple[int, str, str] | None:
    """``(status, code, message)`` when the request is refused, else None."""
    try:
        return (400, "bad_request", NUL_MESSAGE) if has_nul(request) else None
    except UNREADABLE as exc:
        return unreadable(exc)


class RefuseNulCharacters:
    """Answer 400 to a request with a NUL character (see :func:`has_nul`) before any view
    sees it. Works for the site's sync views and its async ones (the bot API)."""

    sync_capable = True
    async_capable = True

    def __init__(self, get_response: Callable[[HttpRequest], Any]) -> None:
        self.get_response = get_response
        self.is_async = iscoroutinefunction(get_response)
        if self.is_async:
            markcoroutinefunction(self)

    def __call__(self, request: HttpRequest) -> Any:
        if self.is_async:
            return self._acall(request)
        problem = _problem(request)
        refusal = _refusal(request, *problem) if problem is not None else None
        return refusal if refusal is not None else self.get_response(request)

    async def _acall(self, request: HttpRequest) -> HttpResponse:
        problem = _problem(request)
        refusal = _refusal(request, *problem) if problem is not None else None
        if refusal is not None:
            return refusal
        response: Awaitable[HttpResponse] = self.get_response(request)
        return await response


# Types worth compressing: the pages, their JSON answers, text records.
COMPRESSIBLE = ("text/", "application/json", "application/javascript", "image/svg+xml",
                "application/manifest+json")


class CompressPages(GZipMiddleware):
    """Django's gzip (with its BREACH mitigation: random bytes in each gzip header, and CSRF
    tokens masked per request) for the pages and JSON answers the views build: a game page
    with its replay is about 100 KB of HTML, a sixth of that compressed.

    Left alone: static files (WhiteNoise, below this in ``MIDDLEWARE``, answers them
    itself, precompressed), anything streamed (the bot API's event streams and the records
    export go out line by line as they are written), and types that are compressed already
    (avatars)."""

    def process_response(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        kind = response.get("Content-Type", "")
        if response.streaming or not kind.startswith(COMPRESSIBLE):
            return response
        return super().process_response(request, response)


API_NOT_FOUND = "No such API endpoint: see /api/docs/ for the paths."


class ApiErrorsAsJson(MiddlewareMixin):
    """The bot API answers in JSON, its 404s and 405s included: a path under ``/api/`` that
    no route takes (Django's HTML 404 page), or a method its view does not take
    (``require_POST``'s empty HTML 405, whose ``Allow`` header stays). So do the site's own
    endpoints to a request that asks for JSON (``Accept: application/json``), in their shape
    (``{"ok": false, "error": {"code", "message"}}``, docs/protocol.md): a 404 raised before
    the view could answer (someone else's conversation), a 405, and a sign-in redirect, which
    becomes 401 (a script cannot follow it to a login page)."""

    def process_response(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        if response.get("Content-Type", "").startswith("application/json"):
            return response
        # (the API's documentation is pages for people: their 404 is the site's page)
        if request.path_info.startswith("/api/") and not request.path_info.startswith(
                "/api/docs/"):
            return self._api(response)
        if wants_json(request):
            return self._site(request, response)
        if response.status_code == 405 and not getattr(response, "streaming", False) \
                and not response.content:
            return self._page(request, response)
        return response

    @staticmethod
    def _page(request: HttpRequest, response: HttpResponse) -> HttpResponse:
        """``require_POST``'s 405 to a person (a form's address opened in the browser) was
        an empty page: the site's page says what the address is for."""
        page = render(request, "405.html", status=405)
        if response.get("Allow"):
            page["Allow"] = response["Allow"]
        return page

    @staticmethod
    def _api(response: HttpResponse) -> HttpResponse:
        if response.status_code == 404:
            return JsonResponse({"error": "not_found", "detail": API_NOT_FOUND}, status=404)
        if response.status_code != 405:
            return response
        allowed = response.get("Allow", "")
        answer = JsonResponse({"error": "method_not_allowed",
                               "detail": f"This endpoint takes {allowed or 'another method'}."},
                              status=405)
        if allowed:
            answer["Allow"] = allowed
        return answer

    @staticmethod
    def _site(request: HttpRequest, response: HttpResponse) -> HttpResponse:
        if response.status_code == 404:
            return json_refusal(404, "not_found", "Not found.")
        if response.status_code == 405:
            answer = json_refusal(405, "method_not_allowed", "This address takes another method.")
            if response.get("Allow"):
                answer["Allow"] = response["Allow"]
            return answer
        user = getattr(request, "user", None)
        if (response.status_code == 302 and user is not None and not user.is_authenticated
                and response.get("Location", "").startswith(resolve_url(settings.LOGIN_URL))):
            return json_refusal(401, "sign_in", "Sign in first.")
        return response
