"""Issue 25, part 1 on the site started as the README says (`bash scripts/run.sh`, Daphne
and a real Celery worker), in a phone-sized browser: a person makes a token on Settings → API
and bots and sees its secret once; the export answers newline JSON through Daphne (the
asynchronous stream) with that token; revoked, the token gets 401; an account with no games
becomes a bot after the confirmation, wears the BOT badge and is offered bot:play, and the
lobby tells it that bots play through the API."""
from __future__ import annotations

import json
import re
import urllib.error
import urllib.request

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.support.accounts import PASSWORD
from tests.support.browser import log_in, phone_page, require_chromium

pytestmark = [pytest.mark.browser, pytest.mark.backend_independent]

require_chromium()

SETUP = f"""
from django.contrib.auth import get_user_model
from allauth.account.models import EmailAddress
from games import services
from games.models import Game
for name in ("tess", "botty"):
    u = get_user_model().objects.create_user(name, name + "@example.com", "{PASSWORD}")
    EmailAddress.objects.create(user=u, email=u.email, verified=True, primary=True)
tess = get_user_model().objects.get(username="tess")
t = services.play_computer(user=tess, mode="classic", level=1)
services.table_resign(table_id=t.pk, user=tess)
print("GAME", Game.objects.get(table_id=t.pk).pk)
"""


def _get(url: str, token: str | None = None) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url)
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, dict(answer.headers), answer.read()
    except urllib.error.HTTPError as err:
        return err.code, dict(err.headers), err.read()


def _login(chromium, base, username):
    ctx, page, _ = phone_page(chromium)
    log_in(page, base, username, PASSWORD, tap=True)
    return ctx, page


def test_tokens_export_and_a_bot_account_on_the_run_command(site, chromium):
    base = site["base"]
    out = site.manage_shell(SETUP)
    game_id = int(re.search(r"GAME (\d+)", out).group(1))

    ctx, page = _login(chromium, base, "tess")
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    console: list[str] = []  # what the page said and where it went: read when the copy fails
    page.on("console", lambda m: console.append(f"{m.type}: {m.text}"))
    page.on("framenavigated", lambda f: console.append(f"navigated: {f.url}"))
    try:
        page.goto(base + "/settings/api/")
        assert page.locator("input[value='bot:play']").count() == 0
        page.fill("input[name=name]", "my exporter")
        page.check("input[value='games:read']")
        page.click("form[action='/settings/api/'] button[type=submit]")
        page.wait_for_selector("[data-new-token]")
        secret = page.text_content("[data-new-token]").strip()
        assert secret.startswith("gin_")
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        # one tap copies it whole (a long press on a phone selected it up to a hyphen)
        ctx.grant_permissions(["clipboard-read", "clipboard-write"], origin=base)
        page.get_by_role("button", name="Copy the token").click()
        try:
            page.wait_for_selector("[data-copy-note]:not(:empty)")
        except PlaywrightTimeout:
            pytest.fail(f"no answer to the copy: {page.url} {console}")
        note = page.text_content("[data-copy-note]")
        assert note == "Copied.", (note, page.url, console)
        assert page.evaluate("() => navigator.clipboard.readText()") == secret
        page.reload()
        assert page.locator("[data-new-token]").count() == 0
        assert secret not in page.content() and secret[:10] in page.content()

        # the export through Daphne: newline JSON, the token's owner sees the game
        status, headers, body = _get(f"{base}/api/games/export/tess/", secret)
        assert status == 200 and headers["Content-Type"] == "application/x-ndjson"
        records = [json.loads(line) for line in body.splitlines()]
        assert [r["game_id"] for r in records] == [game_id]
        assert records[0]["engine"]["format"] == "gin-record/1"
        status, _, body = _get(f"{base}/api/games/export/tess/?mode=chess")
        assert status == 400 and json.loads(body)["error"] == "bad_filter"
        page.reload()
        assert "never" not in page.text_content(".token-table tbody")  # last used is shown

        # revoked: refused
        page.once("dialog", lambda d: d.accept())
        page.click(".token-table button.button-danger")
        page.wait_for_selector(".token-revoked")
        status, headers, body = _get(f"{base}/api/games/export/tess/", secret)
        assert status == 401 and json.loads(body)["error"] == "invalid_token"

        # tess has a game: she cannot become a bot
        page.goto(base + "/settings/api/")
        assert "This account has games" in page.text_content("main")
        assert not errors, errors
    finally:
        ctx.close()

    ctx, page = _login(chromium, base, "botty")
    try:
        page.goto(base + "/settings/api/")
        page.click("a:has-text('Make this a bot account')")
        page.fill("input[name=confirm_username]", "botty")
        page.click("button:has-text('Make it a bot for ever')")
        page.wait_for_selector("#bot-title")
        assert page.locator("main .badge-bot").count() >= 1
        assert page.locator("input[value='bot:play']").count() == 1
        page.goto(base + "/u/botty/")
        assert page.text_content("#profile-name").strip().endswith("BOT")
        page.goto(base + "/play/")
        assert "they play through the API" in page.text_content("main")
        assert page.locator("form[action='/play/computer/']").count() == 0
    finally:
        ctx.close()
