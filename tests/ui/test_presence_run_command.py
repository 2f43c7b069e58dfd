"""Presence on the site started as the README says (`bash scripts/run.sh`: Daphne and Celery
workers, no Redis): a game's end is handled by the worker (the ``social.game_finished`` task
clears its players' "playing" mark), and the contacts must see it in Daphne. With a cache of
local memory per process the worker cleared its own copy, and a contact's list said "Playing"
for six hours after the game (seen from outside); the run command's processes now share one
cache."""
from __future__ import annotations

import time

import pytest

from tests.support.accounts import PASSWORD
from tests.support.browser import log_in, require_chromium

pytestmark = [pytest.mark.browser, pytest.mark.backend_independent]

require_chromium()

SETUP = f"""
from django.contrib.auth import get_user_model
from allauth.account.models import EmailAddress
from social import services
users = {{}}
for name in ("pam", "pip"):
    u = get_user_model().objects.create_user(name, name + "@example.com", "{PASSWORD}")
    EmailAddress.objects.create(user=u, email=u.email, verified=True, primary=True)
    users[name] = u
services.contact_request_send(sender=users["pam"], recipient=users["pip"])
request = users["pip"].contact_requests_received.get()
services.contact_request_accept(user=users["pip"], request_id=request.pk)
print("READY")
"""


def _state_of_pam(page, base: str) -> str:
    contacts = page.evaluate(
        "url => fetch(url, {credentials: 'same-origin'}).then(r => r.json())",
        base + "/contacts/list.json")["contacts"]
    return next(c["state"] for c in contacts if c["username"] == "pam")


def _until(check, want: str, limit: float = 20) -> str:
    deadline = time.monotonic() + limit
    while (got := check()) != want and time.monotonic() < deadline:
        time.sleep(0.3)
    return got


def test_a_contact_is_no_longer_playing_once_the_game_is_over(site, chromium):
    base = site["base"]
    out = site.manage_shell(SETUP)
    assert "READY" in out
    pam_ctx, pip_ctx = chromium.new_context(), chromium.new_context()
    try:
        pam, pip = pam_ctx.new_page(), pip_ctx.new_page()
        log_in(pam, base, "pam", PASSWORD)
        log_in(pip, base, "pip", PASSWORD)
        pip.goto(base + "/contacts/")
        pam.goto(base + "/play/")
        pam.select_option("select[name=level]", "1")
        pam.click(".computer-form button[type=submit]")
        pam.wait_for_selector(".tbl-conn[data-state=open]")
        assert _until(lambda: _state_of_pam(pip, base), "playing") == "playing"
        # pam resigns: Daphne stores the end, the worker's task clears the mark
        pam.on("dialog", lambda d: d.accept())
        pam.click(".tbl-tool-danger")
        pam.click(".tbl-dialog .button-danger")
        pam.wait_for_selector(".tbl-panel[data-kind=game-over]")
        assert _until(lambda: _state_of_pam(pip, base), "online") == "online"
    finally:
        pam_ctx.close()
        pip_ctx.close()
