"""A rated game in the browser: both seats show "1500?", and when the game ends the game-over
panel shows each player's rating change. The change arrives in the table's next versioned
``state`` frame, which the games app publishes when the ratings app has rated the game (the
Daphne process runs Celery eagerly, so the rating task runs right after the commit); there
is no other ratings frame."""
from __future__ import annotations

import json
import re

import pytest

from tests.support.browser import log_in, require_chromium
from tests.support.servers import daphne, migrated_and_set_up, rated_table_script, server_env

pytestmark = [pytest.mark.browser, pytest.mark.backend_independent]
PASSWORD = "a-Strong-pass-123"

require_chromium()

SETUP = rated_table_script(PASSWORD) + """
for _ in range(2):
    tb = Table.objects.get(pk=t.pk)
    st = states.load(tb.state)
    services.table_act(table_id=t.pk, user=users[st.to_act], action=timeouts.safe_action(st),
                       expected_version=tb.version)
print("TABLE", t.pk)
"""


def test_rating_changes_appear_on_the_game_over_panel(tmp_path, chromium):
    env = server_env(tmp_path)
    out = migrated_and_set_up(env, SETUP)
    table_id = int(re.search(r"TABLE (\d+)", out).group(1))
    with daphne(tmp_path, env) as base:
        ctx = chromium.new_context(viewport={"width": 360, "height": 800})
        page = ctx.new_page()
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        received = []
        page.on("websocket", lambda ws: ws.on(
            "framereceived", lambda payload: received.append(json.loads(payload))))
        log_in(page, base, "anna", PASSWORD)
        page.goto(f"{base}/tables/{table_id}/")
        page.wait_for_selector(".tbl-conn[data-state=open]")
        labels = page.eval_on_selector_all(".seat-rating", "els => els.map(e => e.textContent)")
        assert sorted(labels) == ["1500?", "1500?"]
        page.click(".tbl-tool-danger")
        page.click("dialog .button-danger")
        page.wait_for_selector(".rating-changes", timeout=10000)
        text = page.text_content(".rating-changes")
        gain = re.search(r"ben \+(\d+)", text)
        loss = re.search(r"You \u2212(\d+)", text)
        assert gain and loss, text
        # under the title, on screen without scrolling the panel (below the score sheet it
        # was under the panel's buttons on a phone)
        title = page.locator(".tbl-panel .panel-title").bounding_box()
        line = page.locator(".rating-changes").bounding_box()
        scores = page.locator(".tbl-panel .score-grand").bounding_box()
        assert title["y"] < line["y"] < scores["y"], (title, line, scores)
        labels = page.eval_on_selector_all(".seat-rating", "els => els.map(e => e.textContent)")
        assert sorted(labels) == sorted([f"{1500 + int(gain.group(1))}?",
                                         f"{1500 - int(loss.group(1))}?"])
        # one shape, in the versioned frames only: the newest version holds the changes (with
        # an eager Celery it may overtake the finish's own frame, which the client then drops)
        assert "ratings" not in {f.get("type") for f in received}
        last = max((f for f in received if f.get("type") == "state"), key=lambda f: f["version"])
        assert sorted(r["change"] for r in last["ratings"]) == sorted(
            [int(gain.group(1)), -int(loss.group(1))])
        assert page.evaluate("document.documentElement.scrollWidth") <= 360
        assert not errors
        ctx.close()
