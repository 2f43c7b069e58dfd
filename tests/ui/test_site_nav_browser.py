"""The site's own navigation on a phone (an outside audit): the settings tabs show the page's
own tab, and the menu closes when focus leaves it."""
from __future__ import annotations

import pytest

from tests.support.browser import log_in, require_chromium
from tests.support.servers import site_with_users

pytestmark = [pytest.mark.browser, pytest.mark.backend_independent]

require_chromium()

PASSWORD = "a-Strong-pass-123"
PHONE = {"width": 360, "height": 640}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with site_with_users(tmp_path_factory.mktemp("nav"), ("nia",), PASSWORD) as base:
        yield base


@pytest.fixture
def page(server, chromium):
    ctx = chromium.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = ctx.new_page()
    log_in(page, server, "nia")
    yield page
    ctx.close()


@pytest.mark.parametrize("path", ["/accounts/password/change/", "/settings/close/",
                                  "/accounts/email/"])
def test_the_settings_tabs_show_this_pages_tab_on_a_phone(server, page, path):
    """"Profile Alerts API and bots Ema…": the Password page's tab was off the screen."""
    page.goto(server + path)
    seen = page.evaluate("""() => {
      const list = document.querySelector('.settings-nav ul').getBoundingClientRect();
      const tab = document.querySelector('.settings-nav [aria-current=page]')
        .getBoundingClientRect();
      return {wider: document.querySelector('.settings-nav ul').scrollWidth > list.width,
              inside: tab.left >= list.left - 1 && tab.right <= list.right + 1};
    }""")
    assert seen == {"wider": True, "inside": True}


def test_the_settings_tabs_say_there_are_more_on_a_phone(server, page):
    """"Profile Alerts API and bots Em…" was cut with nothing to say more tabs were a swipe
    away (an outside audit): the side with more fades out, as a wide table's does."""
    page.goto(server + "/settings/profile/")
    classes = "() => document.querySelector('.settings-nav ul').className"
    assert page.evaluate(classes) == "scroll-right"
    page.evaluate("() => { const l = document.querySelector('.settings-nav ul');"
                  " l.scrollLeft = l.scrollWidth; }")
    page.wait_for_function("() => document.querySelector('.settings-nav ul')"
                           ".classList.contains('scroll-left')")
    assert page.evaluate(classes) == "scroll-left"
    page.set_viewport_size({"width": 1280, "height": 800})  # a column of tabs: nothing cut
    page.wait_for_function("() => document.querySelector('.settings-nav ul').className === ''")


def test_the_phone_menu_closes_when_focus_leaves_it(server, page):
    """Tabbing past the menu's last link left it open over the page, where Escape no longer
    closed it."""
    page.goto(server + "/")
    page.focus("[data-nav-toggle]")
    page.keyboard.press("Enter")
    assert page.get_attribute("[data-nav-toggle]", "aria-expanded") == "true"
    for _ in range(40):
        page.keyboard.press("Tab")
        if not page.evaluate("() => document.querySelector('[data-nav]')"
                             ".contains(document.activeElement)"):
            break
    else:
        raise AssertionError("focus never left the menu")
    assert page.get_attribute("[data-nav-toggle]", "aria-expanded") == "false"
