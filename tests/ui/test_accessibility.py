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


# [text, contrast ratio of its colour on its background] of each element matching the selector
BUTTON_CONTRAST = """(sel) => {
  const lum = (c) => {
    const [r, g, b] = c.match(/[\\d.]+/g).slice(0, 3).map((v) => {
      v = Number(v) / 255;
      return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  return [...document.querySelectorAll(sel)].map((el) => {
    const s = getComputedStyle(el);
    const [a, b] = [lum(s.color), lum(s.backgroundColor)].sort((x, y) => y - x);
    return [el.textContent, (a + 0.05) / (b + 0.05)];
  });
}"""


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
        # the actions with ben stand as one row of one size (a small <button> was drawn
        # larger than the small link "Message" beside it)
        sizes = page.evaluate("[...document.querySelectorAll('.profile-actions .button')]"
                              ".map(b => [b.textContent, getComputedStyle(b).fontSize,"
                              " Math.round(b.getBoundingClientRect().height)])")
        assert len(sizes) >= 3 and len({(f, h) for _, f, h in sizes}) == 1, sizes
        page.goto(server + "/stats/")
        check("my statistics")
        page.goto(server + "/play/offline/")
        check("offline play")
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
        page.goto(server + "/play/classic/")
        page.click("form[action$='/new/'] button[type=submit]")
        page.wait_for_selector(".tbl-waiting .tbl-invite-contacts")
        check("table, waiting for players")
        waiting = page.url
        visitor = chromium.new_context(viewport=viewport, bypass_csp=True, color_scheme=scheme)
        try:  # a visitor with the link: Sign up, Log in
            page, anna_page = visitor.new_page(), page
            page.goto(waiting)
            page.wait_for_selector(".tbl-waiting a.button-secondary")
            check("table, waiting, logged out")
            # on the felt's gradient axe cannot tell the contrast: the buttons' own colours
            for name, ratio in page.evaluate(BUTTON_CONTRAST, ".tbl-waiting .button"):
                assert ratio >= 4.5, f"{name}: contrast {ratio:.1f} on the waiting panel"
        finally:
            visitor.close()
            page = anna_page
        page.click(".tbl-waiting button:has-text('Leave')")  # no table left waiting
        page.wait_for_selector(".tbl-waiting button:has-text('Leave')", state="detached")
        # the table closed before its game began: it says so (it read "The cards are being
        # dealt..." under a "Game over" panel)
        page.wait_for_selector(".tbl-waiting h2:has-text('This table is closed')")
        assert page.locator(".tbl-panel:not([hidden])").count() == 0
        assert "dealt" not in page.text_content(".tbl-felt")
        check("table, closed before its game")
    finally:
        ctx.close()
    assert not failures, "\n".join(f"{k}: {v}" for k, v in failures.items())
