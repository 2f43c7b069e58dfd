"""The settings page of API tokens and bot accounts (/settings/api/), and becoming a bot."""
from __future__ import annotations

import pytest
from django.urls import reverse

from accounts.api import token_user
from accounts.models import ApiToken, User
from accounts.services import BotConversionError, bot_account_convert
from tests.support.accounts import api_token
from tests.support.records import finished_game

pytestmark = pytest.mark.django_db

API = "/settings/api/"


def test_the_page_is_for_signed_in_users(client):
    response = client.get(API)
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_the_settings_nav_links_the_page(alice_client):
    response = alice_client.get(reverse("accounts:alerts"))
    assert b'href="/settings/api/"' in response.content


def test_a_token_is_made_and_its_secret_shown_once(alice_client, user):
    response = alice_client.post(API, {"name": "exporter", "scopes": ["games:read"]})
    assert response.status_code == 302
    page = alice_client.get(API).content.decode()
    token = ApiToken.objects.get()
    secret = page.split("data-new-token>")[1].split("<")[0]
    assert token_user(secret, "games:read") == user
    assert "exporter" in page and token.prefix in page
    again = alice_client.get(API).content.decode()
    assert secret not in again and token.prefix in again


def test_a_person_is_not_offered_bot_play(alice_client):
    page = alice_client.get(API).content.decode()
    assert 'value="games:read"' in page and 'value="bot:play"' not in page
    response = alice_client.post(API, {"name": "sneaky", "scopes": ["bot:play"]})
    assert response.status_code == 400 and not ApiToken.objects.exists()
    assert "bot:play is for bot accounts only" in response.content.decode()


def test_a_bot_asking_for_an_unknown_scope_is_told_which_there_are(client, make_user):
    """A bot was told "(bot:play is for bot accounts only)" for a scope that is no scope."""
    from tests.support.accounts import make_bot

    bot = make_bot(make_user("scopebot"))
    client.force_login(bot)
    response = client.post(API, {"name": "x", "scopes": ["games:write"]})
    text = response.content.decode()
    assert response.status_code == 400 and not ApiToken.objects.exists()
    assert "is not a scope: choose among bot:play, games:read." in text
    assert "for bot accounts only" not in text


@pytest.mark.parametrize("data", [
    {"name": "", "scopes": ["games:read"]},
    {"name": "x" * 61, "scopes": ["games:read"]},
    {"name": "ok"},
    {"name": "ok", "scopes": ["games:write"]},
])
def test_bad_input_is_a_clear_400(alice_client, data):
    response = alice_client.post(API, data)
    assert response.status_code == 400
    assert b"alert-error" in response.content
    assert not ApiToken.objects.exists()


def test_the_token_limit_is_shown_as_an_error(alice_client, user, settings):
    settings.ACCOUNTS_API_TOKENS_MAX = 1
    api_token(user, "games:read")
    response = alice_client.post(API, {"name": "two", "scopes": ["games:read"]})
    assert response.status_code == 400 and b"the limit is 1" in response.content
    assert ApiToken.objects.count() == 1


def test_revoking_needs_post_and_only_ones_own(alice_client, user, make_user):
    api_token(user, "games:read")
    mine = ApiToken.objects.get()
    url = reverse("accounts:api_token_revoke", args=[mine.pk])
    assert alice_client.get(url).status_code == 405
    response = alice_client.post(url)
    assert response.status_code == 302
    mine.refresh_from_db()
    assert mine.revoked_at is not None
    assert b"revoked" in alice_client.get(API).content

    api_token(make_user(username="bob"), "games:read", name="bobs")
    theirs = ApiToken.objects.get(name="bobs")
    assert alice_client.post(
        reverse("accounts:api_token_revoke", args=[theirs.pk])).status_code == 404
    theirs.refresh_from_db()
    assert theirs.revoked_at is None


def test_revoking_is_csrf_protected(client, user):
    from django.test import Client

    api_token(user, "games:read")
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(user)
    token = ApiToken.objects.get()
    response = strict.post(reverse("accounts:api_token_revoke", args=[token.pk]))
    assert response.status_code == 403
    token.refresh_from_db()
    assert token.revoked_at is None


def test_bots_may_challenge_is_a_setting(alice_client, user):
    assert user.bots_may_challenge is True
    page = alice_client.get(API).content.decode()
    assert "Computer programs (bot accounts) may challenge me" in page
    alice_client.post(reverse("accounts:bots_may_challenge"), {})
    user.refresh_from_db()
    assert user.bots_may_challenge is False
    alice_client.post(reverse("accounts:bots_may_challenge"), {"bots_may_challenge": "on"})
    user.refresh_from_db()
    assert user.bots_may_challenge is True


def test_becoming_a_bot_needs_the_confirmation(alice_client, user):
    url = reverse("accounts:bot_convert")
    page = alice_client.get(url)
    assert page.status_code == 200 and b"cannot be undone" in page.content
    response = alice_client.post(url, {"confirm_username": "bob"})
    assert response.status_code == 400
    user.refresh_from_db()
    assert not user.is_bot
    response = alice_client.post(url, {"confirm_username": "alice"})
    assert response.status_code == 302
    user.refresh_from_db()
    assert user.is_bot
    # now the bot:play scope is offered and works
    page = alice_client.get(API).content.decode()
    assert 'value="bot:play"' in page and "BOT" in page
    alice_client.post(API, {"name": "engine", "scopes": ["bot:play"]})
    assert ApiToken.objects.get().scopes == ["bot:play"]


def test_an_account_with_games_cannot_become_a_bot(alice_client, user, make_user):
    finished_game([user, make_user()])
    page = alice_client.get(API).content.decode()
    assert "This account has games" in page
    response = alice_client.post(reverse("accounts:bot_convert"), {"confirm_username": "alice"})
    assert response.status_code == 400 and b"has games already" in response.content
    user.refresh_from_db()
    assert not user.is_bot
    with pytest.raises(BotConversionError):
        bot_account_convert(user=user)


def test_a_seated_account_cannot_become_a_bot(user, make_user):
    from games.models import Room
    from tests.support.tables import start_table

    room = Room.objects.get(slug="classic") if Room.objects.filter(slug="classic").exists() \
        else Room.objects.create(slug="classic", name="Classic", mode="classic")
    start_table(room, [user, make_user()])
    with pytest.raises(BotConversionError):
        bot_account_convert(user=user)
    assert not User.objects.get(pk=user.pk).is_bot


def test_staff_see_tokens_and_bots_in_the_admin(client, user, make_user):
    api_token(user, "games:read", name="exporter")
    staff = make_user(username="root", is_staff=True, is_superuser=True)
    client.force_login(staff)
    page = client.get("/admin/accounts/apitoken/")
    assert page.status_code == 200 and b"exporter" in page.content
    token = ApiToken.objects.get()
    assert token.key_hash not in client.get("/admin/accounts/apitoken/").content.decode()
    assert client.get(f"/admin/accounts/apitoken/{token.pk}/change/").status_code == 200
    assert client.get("/admin/accounts/apitoken/add/").status_code == 403
    assert client.get(f"/admin/accounts/user/{user.pk}/change/").status_code == 200
    assert client.get("/admin/accounts/user/?is_bot__exact=1").status_code == 200
