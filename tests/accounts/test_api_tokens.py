"""Personal API tokens and the check every API call makes (accounts.api, docs/bot-api.md:
"Tokens", "Rate limits", "Errors")."""
from __future__ import annotations

import asyncio
import json
from types import SimpleNamespace

import pytest
from asgiref.sync import async_to_sync
from django.http import JsonResponse
from django.test import RequestFactory

from accounts.api import ApiError, api_endpoint, error_response, token_user
from accounts.models import ApiToken
from accounts.services import TokenError, api_token_create, api_token_revoke, token_hash
from tests.support.accounts import api_token, bearer, make_bot

pytestmark = pytest.mark.django_db


@api_endpoint("games:read")
def whoami(request):
    return JsonResponse({"user": request.user.username, "token": request.api_token.name})


@api_endpoint("bot:play")
def bot_whoami(request):
    return JsonResponse({"user": request.user.username})


@api_endpoint("games:read")
async def async_whoami(request):
    return JsonResponse({"user": request.user.username})


def call(view, raw=None, **extra):
    request = RequestFactory().post("/api/x/", **(bearer(raw) if raw else {}), **extra)
    if asyncio.iscoroutinefunction(view):  # its thread-sensitive check runs in this thread
        response = async_to_sync(view)(request)
    else:
        response = view(request)
    return response, json.loads(response.content)


def test_a_token_is_stored_hashed_and_shown_once(user):
    token, raw = api_token_create(user=user, name="  my   script ", scopes=["games:read"])
    assert raw.startswith("gin_") and len(raw) > 40
    assert token.key_hash == token_hash(raw) and raw not in token.key_hash
    assert token.prefix == raw[:10] and token.name == "my script"
    assert not ApiToken.objects.filter(key_hash=raw).exists()
    assert token_user(raw, "games:read") == user


@pytest.mark.parametrize(("name", "scopes", "message"), [
    ("", ["games:read"], "name"),
    ("x" * 61, ["games:read"], "too long"),
    ("ok", [], "at least one scope"),
    ("ok", ["games:write"], "Unknown scope"),
    ("ok", ["bot:play"], "bot account"),
    ("a\x07b", ["games:read"], "control characters"),
    ("bot \u202egpj.exe", ["games:read"], "control characters"),
])
def test_bad_tokens_are_refused(user, name, scopes, message):
    with pytest.raises(TokenError, match=message):
        api_token_create(user=user, name=name, scopes=scopes)
    assert not ApiToken.objects.exists()


def test_the_number_of_live_tokens_is_capped(user, settings):
    settings.ACCOUNTS_API_TOKENS_MAX = 2
    first = api_token_create(user=user, name="a", scopes=["games:read"])[0]
    api_token_create(user=user, name="b", scopes=["games:read"])
    with pytest.raises(TokenError, match="limit is 2"):
        api_token_create(user=user, name="c", scopes=["games:read"])
    api_token_revoke(user=user, token_id=first.pk)
    api_token_create(user=user, name="c", scopes=["games:read"])
    assert ApiToken.objects.filter(user=user).count() == 3


def test_a_revoked_token_is_refused(user):
    raw = api_token(user, "games:read")
    token = ApiToken.objects.get()
    api_token_revoke(user=user, token_id=token.pk)
    with pytest.raises(ApiError) as caught:
        token_user(raw, "games:read")
    assert (caught.value.status, caught.value.code) == (401, "invalid_token")


def test_someone_elses_token_cannot_be_revoked(user, make_user):
    token = api_token_create(user=user, name="a", scopes=["games:read"])[0]
    with pytest.raises(ApiToken.DoesNotExist):
        api_token_revoke(user=make_user(), token_id=token.pk)
    token.refresh_from_db()
    assert token.revoked_at is None


@pytest.mark.parametrize("raw", ["", "nope", "gin_" + "x" * 43, "y" * 500])
def test_unknown_tokens_are_401(raw):
    with pytest.raises(ApiError) as caught:
        token_user(raw, "games:read")
    assert (caught.value.status, caught.value.code) == (401, "invalid_token")


def test_missing_scope_and_not_a_bot_are_403(user, make_user):
    raw = api_token(user, "games:read")
    with pytest.raises(ApiError) as caught:
        token_user(raw, "bot:play")
    assert (caught.value.status, caught.value.code) == (403, "missing_scope")

    bot = make_bot(make_user(username="robo"))
    bot_raw = api_token(bot, "bot:play")
    assert token_user(bot_raw, "bot:play") == bot
    with pytest.raises(ApiError) as caught:
        token_user(bot_raw, "games:read")
    assert caught.value.code == "missing_scope"
    # a bot:play token whose account is (somehow) not a bot is refused
    type(bot).objects.filter(pk=bot.pk).update(is_bot=False)
    with pytest.raises(ApiError) as caught:
        token_user(bot_raw, "bot:play")
    assert (caught.value.status, caught.value.code) == (403, "not_a_bot")


def test_an_inactive_account_is_refused(user):
    raw = api_token(user, "games:read")
    user.is_active = False
    user.save()
    with pytest.raises(ApiError) as caught:
        token_user(raw, "games:read")
    assert caught.value.status == 401


def test_last_use_is_recorded(user):
    raw = api_token(user, "games:read")
    assert ApiToken.objects.get().last_used is None
    token_user(raw, "games:read")
    assert ApiToken.objects.get().last_used is not None


def test_a_flood_gets_429_with_retry_after(user, settings, monkeypatch):
    settings.ACCOUNTS_API_RATE_REQUESTS = 3
    # The limit counts in fixed 60 s windows: the calls below must fall in one of them (on
    # the real clock a window could end between the third call and the fourth).
    import accounts.api

    monkeypatch.setattr(accounts.api, "time", SimpleNamespace(time=lambda: 1_800_000_030.0))
    raw = api_token(user, "games:read")
    for _ in range(3):
        assert call(whoami, raw)[0].status_code == 200
    response, body = call(whoami, raw)
    assert response.status_code == 429 and body["error"] == "rate_limited"
    assert 1 <= int(response["Retry-After"]) <= 61
    # another token of the same user has its own budget
    assert call(whoami, api_token(user, "games:read", name="other"))[0].status_code == 200


def test_refused_calls_count_too(user, settings, monkeypatch):
    """A token without the scope was answered 403 640 times and never 429, and an unknown
    token 401 without end: the limit counted only the calls it let through."""
    settings.ACCOUNTS_API_RATE_REQUESTS = 3
    settings.ACCOUNTS_API_ANON_RATE_REQUESTS = 2
    import accounts.api

    monkeypatch.setattr(accounts.api, "time", SimpleNamespace(time=lambda: 1_800_000_030.0))
    raw = api_token(user, "games:read")
    answers = [call(bot_whoami, raw)[0].status_code for _ in range(4)]
    assert answers == [403, 403, 403, 429]
    assert call(whoami, raw)[0].status_code == 429  # the token's budget is spent
    answers = [call(whoami, "no-such-token")[0].status_code for _ in range(3)]
    assert answers == [401, 401, 429]


def test_calls_without_a_token_count_against_the_address(settings, monkeypatch):
    """35 calls with no Authorization header were all answered 401 and none 429: a call
    without a token, or with a header of another scheme, now counts as the docs say."""
    settings.ACCOUNTS_API_ANON_RATE_REQUESTS = 3
    import accounts.api

    monkeypatch.setattr(accounts.api, "time", SimpleNamespace(time=lambda: 1_800_000_030.0))
    answers = [call(whoami)[0].status_code,
               call(whoami, HTTP_AUTHORIZATION="Basic abc")[0].status_code,
               call(whoami)[0].status_code, call(whoami)[0].status_code]
    assert answers == [401, 401, 401, 429]


def test_the_decorator_answers_json_errors(user):
    response, body = call(whoami)
    assert response.status_code == 401 and body["error"] == "missing_token"
    assert response["WWW-Authenticate"].startswith("Bearer")
    response, body = call(whoami, HTTP_AUTHORIZATION="Basic abc")
    assert response.status_code == 401 and body["error"] == "invalid_token"
    response, body = call(bot_whoami, api_token(user, "games:read"))
    assert response.status_code == 403 and body == {
        "error": "missing_scope", "detail": "This token does not have the scope bot:play."}
    response, body = call(whoami, api_token(user, "games:read", name="cli"))
    assert response.status_code == 200 and body == {"user": "alice", "token": "cli"}
    response, body = call(async_whoami, api_token(user, "games:read", name="as"))
    assert response.status_code == 200 and body == {"user": "alice"}


def test_a_session_alone_is_not_enough(alice_client):
    """The decorator ignores the cookie: a logged-in browser gets 401, and POST needs no
    CSRF token (token authentication)."""
    from django.urls import path

    from ginsite import urls as site_urls

    site_urls.urlpatterns.append(path("test-api/whoami/", whoami))
    try:
        from django.urls import clear_url_caches
        clear_url_caches()
        response = alice_client.post("/test-api/whoami/")
        assert response.status_code == 401 and response.json()["error"] == "missing_token"
    finally:
        site_urls.urlpatterns.pop()
        clear_url_caches()


def test_error_response_shape():
    response = error_response(ApiError(429, "rate_limited", "slow down", retry_after=7))
    assert response.status_code == 429 and response["Retry-After"] == "7"
    assert json.loads(response.content) == {"error": "rate_limited", "detail": "slow down"}
