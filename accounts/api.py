"""Token authentication for the site's API (docs/bot-api.md: "Tokens", "Rate limits",
"Errors"). The one check every API call makes: the token exists and is not revoked, its
user is active (and a bot, for ``bot:play``), it has the scope, and it is within its rate
limit. Views use ``api_endpoint``; sockets call ``token_get`` through
``database_sync_to_async`` (``ginsite.tokenauth``: the socket keeps the token's id);
another API view answers its own errors with ``error_response``.

Errors are ``ApiError`` and reach the client as ``{"error": code, "detail": detail}``:

=====  ==================  ===============================================================
401    ``missing_token``    no ``Authorization: Bearer <token>`` header (a session is not
                            enough)
401    ``invalid_token``    unknown, malformed or revoked token, or its account is closed
403    ``missing_scope``    the token lacks the scope the endpoint needs
403    ``not_a_bot``        ``bot:play`` on an account that is not a bot
429    ``rate_limited``     over the token's (or the address's) limit; ``Retry-After``
=====  ==================  ===============================================================
"""
from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from asgiref.sync import sync_to_async
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.http.request import RawPostDataException
from django.views.decorators.csrf import csrf_exempt

from core.cache import count_hit
from core.jsonlimits import JSONBadCharacter, JSONTooDeep
from core.jsonlimits import loads as json_loads

from .conf import accounts_settings
from .models import ApiToken
from .services import api_token_touch, token_hash

if TYPE_CHECKING:  # pragma: no cover
    from .models import User

SCOPE_BOT_PLAY = ApiToken.SCOPE_BOT_PLAY
SCOPE_GAMES_READ = ApiToken.SCOPE_GAMES_READ
# Longer than any token the site makes: a header beyond it is refused unread.
MAX_TOKEN_LENGTH = 200


class ApiError(Exception):
    """An API call refused: HTTP ``status``, a stable ``code``, a sentence for people, and
    for 429 the seconds to wait (``retry_after``)."""

    def __init__(self, status: int, code: str, detail: str, retry_after: int | None = None):
        super().__init__(detail)
        self.status = status
        self.code = code
        self.detail = detail
        self.retry_after = retry_after

    def __repr__(self) -> str:
        return f"ApiError({self.status}, {self.code!r}, {self.detail!r})"


BODY_MAX_BYTES = 4096


def json_object_body(request: HttpRequest,
                     max_bytes: int = BODY_MAX_BYTES) -> dict[str, Any]:
    """The request's body as a JSON object (empty: ``{}``), nested 4 levels at most. Refused
    (``ApiError``) past ``max_bytes`` (413) or when it is not a JSON object (400), a form
    upload included (its stream was read as a form, so it has no body to give)."""
    too_large = ApiError(413, "too_large", f"The body is larger than {max_bytes} bytes.")
    try:
        declared = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        declared = 0
    if declared > max_bytes:  # refused before it is read (Django would refuse past 2.5 MB)
        raise too_large
    try:
        body = request.body
    except RawPostDataException:
        raise ApiError(400, "bad_request", "The body must be a JSON object.") from None
    except RequestDataTooBig:
        raise too_large from None
    if len(body) > max_bytes:
        raise too_large
    charset = (request.content_params or {}).get("charset", "utf-8")
    if body and (request.content_type != "application/json"
                 or charset.lower().replace("-", "") != "utf8"):
        # a body sent as text, as a form or in another charset was read as UTF-8 JSON all
        # the same: what a client meant is not guessed
        raise ApiError(415, "unsupported_media_type",
                       "Send the body as JSON: 'Content-Type: application/json' (UTF-8).")
    try:
        data = json_loads(body or b"{}", max_depth=4)
    except (JSONTooDeep, JSONBadCharacter) as exc:
        raise ApiError(400, "bad_request", str(exc)) from None
    except ValueError:
        raise ApiError(400, "bad_request", "The body is not valid JSON.") from None
    if not isinstance(data, dict):
        raise ApiError(400, "bad_request", "The body must be a JSON object.")
    return data


def error_response(err: ApiError) -> JsonResponse:
    """The JSON answer of an API error, with ``Retry-After`` (429) or ``WWW-Authenticate``
    (401) as HTTP asks."""
    response = JsonResponse({"error": err.code, "detail": err.detail}, status=err.status)
    if err.retry_after is not None:
        response["Retry-After"] = str(err.retry_after)
    if err.status == 401:
        response["WWW-Authenticate"] = 'Bearer realm="api"'
    return response


def rate_limit(key: str, *, requests: int, window: int, what: str) -> None:
    """Count one request against ``key`` in fixed windows of ``window`` seconds; raise
    ``ApiError`` 429 (with the seconds left in the window) past ``requests``."""
    now = time.time()
    bucket = int(now // window)
    count = count_hit(f"api:rate:{key}:{bucket}", window + 1)
    if count > requests:
        retry = max(1, int((bucket + 1) * window - now + 0.999))
        raise ApiError(
            429, "rate_limited",
            f"Too many requests {what}: at most {requests} per {window} s. "
            f"Try again in {retry} s.",
            retry_after=retry,
        )


def token_get(raw_token: str, scope: str) -> ApiToken:
    """The token ``raw_token`` if it may be used for ``scope`` now (see ``token_user``)."""
    if not raw_token or len(raw_token) > MAX_TOKEN_LENGTH:
        raise ApiError(401, "invalid_token", "This token is not valid.")
    try:
        token = ApiToken.objects.select_related("user").get(key_hash=token_hash(raw_token))
    except ApiToken.DoesNotExist:
        raise ApiError(401, "invalid_token", "This token is not valid.") from None
    if token.revoked_at is not None:
        raise ApiError(401, "invalid_token", "This token has been revoked.")
    user = token.user
    if not user.is_active:
        raise ApiError(401, "invalid_token", "The account of this token is closed.")
    if scope not in ApiToken.SCOPES:  # a programming error in the caller, not the client's
        raise ValueError(f"unknown scope {scope!r}")
    # every call counts, refused ones too (a token without the scope was never limited)
    rate_limit(
        f"token:{token.pk}",
        requests=int(accounts_settings.get("API_RATE_REQUESTS")),
        window=int(accounts_settings.get("API_RATE_WINDOW")),
        what="with this token",
    )
    if not token.has_scope(scope):
        raise ApiError(403, "missing_scope", f"This token does not have the scope {scope}.")
    if scope == SCOPE_BOT_PLAY and not user.is_bot:
        raise ApiError(403, "not_a_bot", "Only a bot account may play through the API.")
    api_token_touch(token=token)
    return token


def token_user(raw_token: str, scope: str) -> User:
    """The user of ``raw_token`` if the token may be used for ``scope`` now: it exists, is
    not revoked, has the scope, its user is active (and a bot, for ``bot:play``), and it is
    within its rate limit. Records the use. Raises ``ApiError`` (401, 403, 429)."""
    return token_get(raw_token, scope).user



def client_address(request: HttpRequest) -> str:
    """The address a request came from (the proxy in front sets REMOTE_ADDR)."""
    return str(request.META.get("REMOTE_ADDR") or "unknown")


def anonymous_rate_limit(request: HttpRequest) -> None:
    """The limit on requests without a token, per client address (``ApiError`` 429)."""
    address_rate_limit(client_address(request))


def address_rate_limit(address: str) -> None:
    """Count one call without a valid token from ``address`` (a request's, or a socket
    handshake's): ``ApiError`` 429 past the anonymous limit."""
    rate_limit(
        f"ip:{address}",
        requests=int(accounts_settings.get("API_ANON_RATE_REQUESTS")),
        window=int(accounts_settings.get("API_ANON_RATE_WINDOW")),
        what="from your address without a token",
    )


def bearer_token(request: HttpRequest) -> str | None:
    """The token of ``Authorization: Bearer <token>``; None without the header. Another
    scheme or an empty token: ``ApiError`` 401."""
    header = request.META.get("HTTP_AUTHORIZATION")
    if header is None:
        return None
    scheme, _, raw = header.strip().partition(" ")
    raw = raw.strip()
    if scheme.lower() != "bearer" or not raw:
        raise ApiError(401, "invalid_token",
                       "Send the token as 'Authorization: Bearer <token>'.")
    return raw


def authenticate(request: HttpRequest, scope: str, *, anonymous: bool = False) -> None:
    """Set ``request.user`` and ``request.api_token`` from the request's token, or raise
    ``ApiError``. With ``anonymous``, a request without a token is let through as the
    anonymous user (``api_token`` None), under the per-address limit; a session cookie
    never counts."""
    try:
        raw = bearer_token(request)
    except ApiError:  # a header of another scheme, or empty: a call without a token
        anonymous_rate_limit(request)
        raise
    if raw is None:
        # counted before the refusal: every call counts (docs/bot-api.md, "Rate limits")
        anonymous_rate_limit(request)
        if not anonymous:
            raise ApiError(401, "missing_token",
                           "This endpoint needs a token: 'Authorization: Bearer <token>'.")
        request.user = AnonymousUser()
        request.api_token = None  # type: ignore[attr-defined]
        return
    try:
        token = token_get(raw, scope)
    except ApiError as err:
        if err.status == 401:  # no such token (or revoked): counted as a call without one
            anonymous_rate_limit(request)
        raise
    request.user = token.user
    request.api_token = token  # type: ignore[attr-defined]


def api_endpoint(scope: str, *, anonymous: bool = False) -> Callable[[Callable[..., Any]], Any]:
    """Decorate an API view: token authentication for ``scope`` (``Authorization: Bearer``),
    ``request.user`` and ``request.api_token`` set, ``ApiError`` (from the check or from the
    view) answered as JSON with its status, csrf-exempt (no cookie is trusted). A request
    with only a session is refused (401), unless ``anonymous`` lets requests without a
    token through as the anonymous user. Works on sync and async views."""
    if scope not in ApiToken.SCOPES:
        raise ValueError(f"unknown scope {scope!r}")

    def decorate(view: Callable[..., Any]) -> Any:
        if asyncio.iscoroutinefunction(view):
            check = sync_to_async(authenticate)

            @functools.wraps(view)
            async def async_wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> Any:
                try:
                    await check(request, scope, anonymous=anonymous)
                    return await view(request, *args, **kwargs)
                except ApiError as err:
                    return error_response(err)

            return csrf_exempt(async_wrapped)

        @functools.wraps(view)
        def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            try:
                authenticate(request, scope, anonymous=anonymous)
                response: HttpResponse = view(request, *args, **kwargs)
                return response
            except ApiError as err:
                return error_response(err)

        return csrf_exempt(wrapped)

    return decorate
