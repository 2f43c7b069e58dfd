"""Issue 19, items 6-8 in a phone-sized browser (390x844), on the site started as the README
says (`bash scripts/run.sh`, tests/ui/conftest.py's ``site``): a rated game resigned
before both players moved says "Not rated: ended before both players moved" on the game-over
panel (live, over the socket), the game page and the archive; a casual game against the
computer shows no "rated 1416?" under Final scores; the profile's recent games read
"won against anna · anna resigned before anyone scored", not "won against anna, , 0 to 0/"."""
from __future__ import annotations

import re

import pytest

from tests.support.accounts import PASSWORD
from tests.support.browser import log_in, phone_page, require_chromium
from tests.support.servers import rated_table_script

pytestmark = [pytest.mark.browser, pytest.mark.backend_independent]

require_chromium()

REASON = "ended before both players moved"
SETUP = rated_table_script(PASSWORD) + """
tb = Table.objects.get(pk=t.pk)
st = states.load(tb.state)
services.table_act(table_id=t.pk, user=users[st.to_act], action=timeouts.safe_action(st),
                   expected_version=tb.version)
c = services.play_computer(user=users[0], mode="classic", level=1)
services.table_resign(table_id=c.pk, user=users[0])
print("TABLE", t.pk, "COMPUTER", Game.objects.get(table_id=c.pk).pk)
"""


def _text(page, selector: str) -> str:
    return re.sub(r"\s+", " ", page.text_content(selector) or "").strip()


def test_unrated_reason_and_labels_on_a_phone(site, chromium):  # noqa: F811
    base = site["base"]
    out = site.manage_shell(SETUP)
    found = re.search(r"TABLE (\d+) COMPUTER (\d+)", out)
    table_id, computer_game = int(found.group(1)), int(found.group(2))
    ctx, page, errors = phone_page(chromium)
    try:
        log_in(page, base, "anna", PASSWORD)
        # 6: the game-over panel, live
        page.goto(f"{base}/tables/{table_id}/")
        page.wait_for_selector(".tbl-conn[data-state=open]")
        page.click(".tbl-tool-danger")
        page.click("dialog .button-danger")
        page.wait_for_selector(".tbl-panel[data-kind=game-over] .rating-unrated", timeout=15000)
        assert _text(page, ".rating-unrated") == f"Not rated: {REASON}."
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        # ... the game page and the archive say the same
        page.click(".tbl-panel a:has-text('Game record')")
        page.wait_for_selector("#final-title")
        assert f"not rated: {REASON}" in _text(page, "main")
        assert not re.search(r"rated 1\d{3}", _text(page, "main"))
        page.goto(base + "/games/")
        rows = page.eval_on_selector_all("td[data-label=Game]",
                                         "els => els.map(e => e.textContent)")
        assert any(f"not rated: {REASON}" in r for r in rows), rows
        assert not any(r.strip().endswith("· rated") for r in rows), rows
        # 8: a casual game against the computer shows no rating
        page.goto(f"{base}/games/{computer_game}/")
        page.wait_for_selector(".final-list")
        final = _text(page, ".final-list")
        assert "Computer (Easy)" in final and "rated" not in final, final
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        # 7: ben sat in the last seat; his profile's line has no stray separators
        page.goto(base + "/u/ben/")
        line = _text(page, ".recent-games li")
        assert re.fullmatch(r"Classic Gin: won against anna · anna resigned before anyone scored"
                            r" · \d+ \w+ \d{4}", line), line
        page.goto(base + "/u/anna/")
        lines = page.eval_on_selector_all(".recent-games li", "els => els.map(e => e.textContent)")
        lines = [re.sub(r"\s+", " ", x).strip() for x in lines]
        assert lines[0].startswith("Classic Gin: lost against ben · anna resigned before"), lines
        assert lines[1].startswith(
            "Classic Gin: lost against Computer (Easy) · anna resigned"), lines
        assert not any(", ," in x or "/ ·" in x for x in lines), lines
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        assert not errors, errors
    finally:
        ctx.close()
