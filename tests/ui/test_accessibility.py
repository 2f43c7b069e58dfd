"""An accessibility pass with axe-core (vendored in static/vendor/axe-core/, injected here by
Playwright; users are never sent it): no serious or critical violation on the home, lobby,
table, profile, messages, game and rules pages, logged out and in, on a desktop and a phone, in
the light theme and in the dark one (static/css/dark.css: a device set to dark)."""
from __future__ import annotations

import pytest

from tests.support.browser import log_in, require_chromium, serious_violations
from tests.support.servers import site_with_users

pytestmark = [pytest.mark.browser, pytest.mark.backend_independent]

PASSWORD = "a-Strong-pass-123"

require_chromium()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("axe")
    with site_with_users(tmp, ('anna', 'ben'), PASSWORD, country='FR',
                         bio='Likes Oklahoma.') as base:
        yield base


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("viewport", [{"width": 1280, "height": 800},
                                      {"width": 390, "height": 844}], ids=["desktop", "phone"])
def test_no_serious_violations_on_the_main_pages(server, chromium, viewport, scheme, tmp_path):
    # the site's CSP allows only its own scripts: the test lifts it to inject axe-core
    ctx = chromium.new_context(viewport=viewport, bypass_csp=True, color_scheme=scheme)
    page = ctx.new_page()
    failures = {}

    def check(name):
        page.wait_for_load_state()
        problems = serious_violations(page)
        if problems:
            page.screenshot(path=str(tmp_path / f"axe-{name}.png"), full_page=True)
            failures[name] = problems

    try:
        page.goto(server + "/")
        check("home, logged out")
        page.goto(server + "/rules/")
        check("rules and help, logged out")
        page.goto(server + "/accounts/login/")
        check("log in")
        log_in(page, server, "anna", PASSWORD)
        check("home")
        page.goto(server + "/play/")
        check("lobby")
        page.select_option("select[name=mode]", "classic")
        page.select_option("select[name=level]", "1")
        page.click(".computer-form button[type=submit]")
        page.wait_for_selector(".tbl-main .hand-card")
        page.wait_for_selector(".tbl-conn[data-state=open]")
        page.wait_for_selector(".tbl.is-my-turn:not(.is-busy)")
        check("table")
        page.click(".tbl-tool:has-text('Score sheet')")
        page.wait_for_selector(".tbl-dialog[open]")
        check("table, score sheet")
        page.keyboard.press("Escape")
        page.click(".tbl-tool-danger")
        page.click(".tbl-dialog .button-danger")
        page.wait_for_selector(".tbl-panel[data-kind=game-over]")
        check("table, game over")
        page.goto(server + "/games/")
        check("your games")
        page.click(".games-table a.replay-link time")
        page.wait_for_selector(".score-sheet, .card-box")
        check("game")
        page.goto(server + "/u/anna/")
        check("own profile")
        page.goto(server + "/u/ben/")
        check("profile")
        page.goto(server + "/messages/")
        check("messages")
        page.goto(server + "/messages/with/ben/")
        check("conversation")
        page.goto(server + "/help/")
        page.wait_for_selector("#rummy")
        check("rules and help")
        # the rules read on a phone without sideways scrolling
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
        page.goto(server + "/settings/alerts/")
        check("alert settings")
        page.goto(server + "/play/")
        page.select_option("select[name=mode]", "classic")
        page.select_option("select[name=level]", "1")
        page.click(".computer-form button[type=submit]")
        page.wait_for_selector(".tbl-conn[data-state=open]")
        page.goto(server + "/play/")
        page.wait_for_selector("#my-tables")
        check("lobby with your tables")
    finally:
        ctx.close()
    assert not failures, "\n".join(f"{k}: {v}" for k, v in failures.items())
