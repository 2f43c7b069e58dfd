"""Issue 19, items 9 and 10 on a phone (390 x 844) against a live server: "Your tables" on the
Play page with Resume and Close (a resignation asks first), and a 60 s turn clock that shows
60 s, not the first turn's 70, when the game begins."""
from __future__ import annotations

import re

import pytest

from tests.support.browser import log_in, require_chromium
from tests.support.servers import site_with_users

pytestmark = [pytest.mark.browser, pytest.mark.backend_independent]

PASSWORD = "a-Strong-pass-123"
PHONE = {"width": 390, "height": 844}

require_chromium()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("mytables")
    with site_with_users(tmp, ('mia', 'noa'), PASSWORD) as base:
        yield {"base": base, "tmp": tmp}


@pytest.fixture
def page(server, chromium):
    ctx = chromium.new_context(viewport=PHONE, reduced_motion="reduce", is_mobile=True,
                               has_touch=True)
    page = ctx.new_page()
    log_in(page, server["base"], "mia", PASSWORD)
    yield page
    ctx.close()


def _on_screen(page, selector):
    box = page.locator(selector).bounding_box()
    return box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"] + 1


def _new_table(page, base, *, private=False, bots=False, seconds="30"):
    page.goto(base + "/play/classic/")
    page.select_option("select[name=seconds_per_turn]", seconds)
    if bots:
        page.select_option("select[name=bots]", "1")
    if private:
        page.check("input[name=private]")
    page.click("form[action$='/new/'] button[type=submit]")
    page.wait_for_selector("#table-app")
    return int(re.search(r"/tables/(\d+)/", page.url).group(1))


def test_your_tables_resume_and_close_on_a_phone(server, page):
    base = server["base"]
    private = _new_table(page, base, private=True)
    playing = _new_table(page, base, bots=True)
    page.goto(base + "/play/")
    rows = page.locator("#my-tables .my-table")
    assert rows.count() == 2
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    row = f"#my-tables .my-table[data-table='{private}']"
    assert "private" in page.text_content(row) and "waiting" in page.text_content(row)
    for sel in (f"{row} a.button", f"{row} button"):
        assert _on_screen(page, sel), sel
    # Resume goes back to the private table (its invite link included)
    page.click(f"{row} a.button")
    page.wait_for_selector("#table-app")
    assert f"/tables/{private}/?invite=" in page.url
    page.goto(base + "/play/")
    page.click(f"{row} button:has-text('Cancel')")
    page.wait_for_selector(".message-success")
    assert page.locator(f"#my-tables .my-table[data-table='{private}']").count() == 0
    # a game in progress: Resign asks first
    row = f"#my-tables .my-table[data-table='{playing}']"
    page.click(f"{row} summary")
    confirm = f"{row} .confirm-close button"
    page.wait_for_selector(confirm)
    assert _on_screen(page, confirm)
    assert "counts as a loss" in page.text_content(f"{row} .confirm-close")
    page.click(confirm)
    page.wait_for_selector(".message-success")
    assert "resigned" in page.text_content(".message-success")
    assert page.locator("#my-tables").count() == 0


def test_a_60_s_clock_never_shows_more_than_60_s(server, page, chromium):
    # the game starts while mia's page is open and connected (noa takes the other seat): its
    # first turn's timer is on her screen from the start. Against the computer the game began
    # before her page had loaded, and the computer could have taken that first turn already
    # (a person's turn after it has no extra: 60 shows for its first second only)
    base = server["base"]
    table = _new_table(page, base, seconds="60")
    page.wait_for_selector(".tbl-conn[data-state=open]")
    ctx = chromium.new_context(viewport=PHONE)
    other = ctx.new_page()
    log_in(other, base, "noa", PASSWORD)
    other.goto(f"{base}/tables/{table}/")
    other.wait_for_selector(".tbl-conn[data-state=open]")
    other.click(".tbl-waiting button:has-text('Take a seat')")
    page.wait_for_selector("[data-timer-seat]:not([hidden]) .seat-timer-text")
    shown = []
    for _ in range(12):  # the first turn has 10 s extra: the timer holds at the turn's 60 s
        for text in page.eval_on_selector_all(
                "[data-timer-seat]:not([hidden]) .seat-timer-text",
                "els => els.map((e) => e.textContent)"):
            shown.append(int(text.split()[0]))
        page.wait_for_timeout(250)
    ctx.close()
    assert shown, "no timer was shown"
    assert max(shown) <= 60, shown
    assert 60 in shown, shown
