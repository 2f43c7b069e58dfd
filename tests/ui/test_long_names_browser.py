"""A username may be 150 letters with no place to break: the pages that list tables with
their players' names (the start page's Your tables, the Play page, a room, which every visitor
sees) keep it inside their columns, on a phone and on a desktop. An audit's such name
widened the page to about 1930 px at 1280 (a phone's zoomed out to 1560), and squeezed
"Waiting for players" to a word a line. On the site started as the README says."""
from __future__ import annotations

import pytest

from tests.support.accounts import PASSWORD
from tests.support.browser import log_in, require_chromium

pytestmark = [pytest.mark.browser, pytest.mark.backend_independent]

require_chromium()

LONG = "w" * 150
WIDER_THAN_THE_SCREEN = ("() => document.documentElement.scrollWidth"
                         " > document.documentElement.clientWidth")


def test_a_very_long_name_stays_inside_the_table_lists(site, chromium):
    base = site["base"]
    site.manage_shell(
        "from django.contrib.auth import get_user_model\n"
        "from allauth.account.models import EmailAddress\n"
        "from games import services\n"
        f"u = get_user_model().objects.create_user('{LONG}', 'long@example.com', '{PASSWORD}')\n"
        "EmailAddress.objects.create(user=u, email=u.email, verified=True, primary=True)\n"
        "services.play_computer(user=u, mode='classic', level=1, seconds_per_turn=0)\n"
    )
    for width, height in ((1280, 800), (390, 844)):
        ctx = chromium.new_context(viewport={"width": width, "height": height})
        page = ctx.new_page()
        try:
            page.goto(f"{base}/play/classic/")  # a visitor: the room's Playing now
            assert LONG in page.text_content("main")
            assert not page.evaluate(WIDER_THAN_THE_SCREEN), (width, "/play/classic/")
            log_in(page, base, LONG, PASSWORD)
            for path in ("/", "/play/", "/play/classic/"):
                page.goto(base + path)
                assert LONG in page.text_content("main"), path
                assert not page.evaluate(WIDER_THAN_THE_SCREEN), (width, path)
            # the column beside Playing now keeps its words whole
            page.goto(f"{base}/play/classic/")
            heading = page.locator("h2:has-text('Waiting for players')")
            assert heading.evaluate("h => h.getBoundingClientRect().height") < 80

        finally:
            ctx.close()
    # a conversation's heading, on a phone: the @handle is cut short (it widened the page to
    # 1406 px)
    ctx = chromium.new_context(viewport={"width": 390, "height": 844})
    page = ctx.new_page()
    try:
        log_in(page, base, "rhea", PASSWORD)
        page.goto(f"{base}/messages/with/{LONG}/")
        assert page.locator(".conversation-handle").count() == 1
        assert not page.evaluate(WIDER_THAN_THE_SCREEN), "conversation"
    finally:
        ctx.close()
