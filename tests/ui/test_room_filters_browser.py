"""A room's filters on a phone (390 x 844) against a live server: a choice redraws the lists at
once, with the query in the address (a reload keeps it), the bar fits the screen, and Play now
asks for what the filters show."""
from __future__ import annotations

import re
import time

import pytest

from tests.support.accounts import PASSWORD
from tests.support.browser import PHONE, log_in, phone_page, require_chromium
from tests.support.servers import site_with_users

pytestmark = [pytest.mark.browser, pytest.mark.backend_independent]

require_chromium()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with site_with_users(tmp_path_factory.mktemp("filters"), ("mia", "noa", "ola"),
                         PASSWORD) as base:
        yield base


def _new_table(chromium, base, user, seconds):
    ctx, page, _ = phone_page(chromium)
    log_in(page, base, user)
    page.goto(base + "/play/classic/")
    page.select_option("select[name=seconds_per_turn]", seconds)
    page.click("form[action$='/new/'] button[type=submit]")
    page.wait_for_selector("#table-app")
    table = int(re.search(r"/tables/(\d+)/", page.url).group(1))
    ctx.close()
    return table


def _rows(page):
    return page.evaluate(
        "() => [...document.querySelectorAll('#open-tables .table-row > a')]"
        ".map(a => a.textContent)")


def _wait_rows(page, expected):
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if sorted(_rows(page)) == sorted(expected):
            return
        time.sleep(0.1)
    assert sorted(_rows(page)) == sorted(expected)


def test_a_filter_redraws_the_room_at_once_and_the_address_keeps_it(server, chromium):
    fast = _new_table(chromium, server, "noa", "15")
    slow = _new_table(chromium, server, "ola", "60")
    ctx, page, errors = phone_page(chromium, reduced_motion="reduce")
    log_in(page, server, "mia")
    page.goto(server + "/play/classic/")
    _wait_rows(page, [f"Table {fast}", f"Table {slow}"])
    assert not page.locator("#room-filters-apply").is_visible()  # a choice applies at once
    assert not page.locator("#room-filters-clear").is_visible()
    page.select_option("#filter_time", "15")
    _wait_rows(page, [f"Table {fast}"])
    assert page.url.endswith("/play/classic/?time=15")
    assert page.locator("#room-filters-clear").is_visible()
    page.select_option("#filter_rated", "rated")
    _wait_rows(page, [])
    assert page.locator("#open-tables").inner_text() == "No waiting table matches these filters."
    page.reload()
    assert page.locator("#filter_time").input_value() == "15"
    assert page.locator("#filter_rated").input_value() == "rated"
    _wait_rows(page, [])
    for select in ("#filter_time", "#filter_rated"):
        box = page.locator(select).bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    # "Show all tables" is a link: the page loads again, and its script must be running
    # before the next choice (the rows are drawn by the server first: a choice made then
    # went unseen by the script, and Play now kept no time, once in CI)
    with page.expect_navigation(wait_until="load"):
        page.click("#room-filters-clear")
    _wait_rows(page, [f"Table {fast}", f"Table {slow}"])
    assert page.url.endswith("/play/classic/")
    # Play now asks for what the filters show: noa's 15 s table
    page.select_option("#filter_time", "15")
    assert page.locator("#room-quick input[name=time]").input_value() == "15"
    page.click("#room-quick button[type=submit]")
    page.wait_for_url(f"**/tables/{fast}/")
    assert errors == []
    ctx.close()


def test_the_note_of_a_table_nobody_was_waiting_at_goes_when_its_game_starts(server,
                                                                              chromium):
    """"Nobody was waiting for such a game: this table is yours" stood above the game that
    was dealt there and played (an audit): it holds until the game starts, then goes."""
    ctx, page, errors = phone_page(chromium)
    log_in(page, server, "ola")
    page.goto(server + "/play/oklahoma/")
    page.click("#room-quick button[type=submit]")
    page.wait_for_selector(".tbl-conn[data-state=open]")
    note = page.locator("[data-until-start]")
    assert "Nobody was waiting for such a game" in note.inner_text()
    other, joiner, _ = phone_page(chromium)
    log_in(joiner, server, "noa")
    joiner.goto(server + "/play/oklahoma/")
    joiner.click("#room-quick button[type=submit]")
    joiner.wait_for_url(re.compile(r".*/tables/\d+/$"))
    assert joiner.url == page.url  # (noa took ola's seat: the game is dealt)
    page.wait_for_function("() => document.getElementById('table-app').dataset.status"
                           " === 'playing'")
    assert page.locator("[data-until-start]").count() == 0
    assert errors == []
    other.close()
    ctx.close()
