"""The theme: the page is dark on a device set to dark and light on one set to light, unless
the footer's Theme choice says otherwise on this device; the choice is kept across pages and
reloads, reaches the other open tabs, and "As this device" gives the device back its say."""
from __future__ import annotations

import pytest

from tests.support.browser import require_chromium
from tests.support.servers import site_with_users

pytestmark = [pytest.mark.browser, pytest.mark.backend_independent]

require_chromium()

PAPER = "getComputedStyle(document.documentElement).backgroundColor"
LIGHT, DARK = "rgb(247, 246, 242)", "rgb(18, 21, 19)"  # --paper in site.css and in dark.css


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with site_with_users(tmp_path_factory.mktemp("theme"), (), "unused") as base:
        yield base


@pytest.mark.parametrize("device", ["light", "dark"])
def test_the_page_follows_the_device_until_this_device_chooses(server, chromium, device):
    ctx = chromium.new_context(color_scheme=device)
    page = ctx.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server + "/")
    assert page.evaluate(PAPER) == (DARK if device == "dark" else LIGHT)
    choice = page.locator("#theme-select")
    assert choice.is_visible() and choice.input_value() == "auto"
    assert page.get_by_label("Theme").count() == 1  # the select is labelled

    other = "light" if device == "dark" else "dark"
    choice.select_option(other)
    assert page.evaluate(PAPER) == (DARK if other == "dark" else LIGHT)
    second_tab = ctx.new_page()
    second_tab.goto(server + "/rules/")  # another page: the choice holds there too
    assert second_tab.evaluate(PAPER) == (DARK if other == "dark" else LIGHT)
    assert second_tab.locator("#theme-select").input_value() == other
    page.reload()
    assert page.evaluate(PAPER) == (DARK if other == "dark" else LIGHT)

    # back to the device's own: and the other open tab follows at once
    page.locator("#theme-select").select_option("auto")
    assert page.evaluate(PAPER) == (DARK if device == "dark" else LIGHT)
    second_tab.wait_for_function(f"() => {PAPER} === {(DARK if device == 'dark' else LIGHT)!r}")
    assert second_tab.locator("#theme-select").input_value() == "auto"
    assert page.evaluate("localStorage.getItem('gin.theme')") is None
    assert errors == []
    ctx.close()
