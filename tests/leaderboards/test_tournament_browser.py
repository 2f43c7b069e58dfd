"""The tournament page in a real browser on a phone-sized screen: the player's match, the
bracket, and the page updating by itself (no reload) when the match's result comes in and the
next match opens; no console or CSP errors, and nothing wider than the screen but the
bracket's own scroller."""
from __future__ import annotations

import re

import pytest

from tests.support.browser import CHROMIUM, CHROMIUM_ARGS, require_chromium
from tests.support.servers import (
    daphne,
    manage,
    migrated_and_set_up,
    printed_json,
    server_env,
    signed_in_users_script,
)

pytestmark = [pytest.mark.browser, pytest.mark.backend_independent]

require_chromium()

WAIT = 20000


def _cup(staff: str, name: str, capacity: int) -> str:
    """A ``manage.py shell`` script's cup (after ``signed_in_users_script``): made by the staff
    account ``staff`` (an expression), entered by every user of the script, started now."""
    return f"""
from datetime import timedelta
from django.utils import timezone
from leaderboards.tournaments import services
from leaderboards.tournaments.models import Match, Tournament
staff = {staff}
t = services.tournament_create(user=staff, name={name!r}, capacity={capacity}, target=50,
                               starts_at=timezone.now() + timedelta(minutes=5))
for u in users.values():
    services.tournament_enter(tournament_id=t.pk, user=u)
Tournament.objects.filter(pk=t.pk).update(starts_at=timezone.now())
services.tournament_start(tournament_id=t.pk)
"""


SETUP = signed_in_users_script(("anna", "ben", "cleo", "dan", "eve")) + _cup(
    'User.objects.create_user("boss", "boss@example.com", "x-Strong-pass-1", is_staff=True)',
    "Phone Cup", 8) + """
m = Match.objects.get(tournament=t, round=1)
# anna has been to her table already (and came back to watch the bracket)
from games.models import Seat
Seat.objects.filter(table_id=m.table_id, user=m.player_a).update(last_seen=timezone.now())
out["tournament"] = t.pk
out["a"] = m.player_a.username
out["b"] = m.player_b.username
out["table"] = m.table_id
print("SETUP=" + json.dumps(out))
"""

RESIGN = """
from accounts.models import User
from games import services
services.table_resign(table_id={table}, user=User.objects.get(username="{who}"))
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("tournament-browser")
    env = server_env(tmp)
    data = printed_json(migrated_and_set_up(env, SETUP), "SETUP")
    with daphne(tmp, env) as base:
        yield base, data, env


def _phone(browser, base: str, session: str, errors: list[str]):
    """A phone-sized page signed in with ``session``; its script errors go to ``errors``."""
    context = browser.new_context(viewport={"width": 360, "height": 740})
    context.add_cookies([{"name": "sessionid", "value": session, "url": base}])
    page = context.new_page()
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    page.on("pageerror", lambda e: errors.append(str(e)))
    return context, page


def test_the_page_follows_the_match_live_on_a_phone(site):
    from playwright.sync_api import sync_playwright

    base, data, env = site
    errors: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        context, page = _phone(browser, base, data[data["a"]], errors)
        page.goto(f"{base}/tournaments/{data['tournament']}/")
        play = page.get_by_role("link", name="Play your match")
        play.wait_for(timeout=WAIT)
        assert play.get_attribute("href") == f"/tables/{data['table']}/"
        assert page.locator(".bracket-box").count() >= 4
        assert page.locator(".bracket .bracket-name em").count() == 3  # byes
        # The page is as wide as the phone (the bracket scrolls inside itself).
        assert page.evaluate("document.documentElement.scrollWidth") <= 360
        manage(env, "shell", "-c", RESIGN.format(table=data["table"], who=data["b"]),
               capture_output=True)
        # The winner's second-round match (against the top seed, who had a bye) opens at
        # once: the page learns it live and takes its player to the new table, which they
        # have not opened yet (a player left on the page lost it as absent).
        page.wait_for_url(re.compile(r"/tables/\d+/$"), timeout=WAIT)
        assert page.url != f"{base}/tables/{data['table']}/"
        page.wait_for_selector(".tbl-conn[data-state=open]", timeout=WAIT)
        # back on the tournament page, now that the table was opened: the page stays
        page.goto(f"{base}/tournaments/{data['tournament']}/")
        page.get_by_role("link", name="Play your match").wait_for(timeout=WAIT)
        page.wait_for_timeout(1000)
        assert "/tournaments/" in page.url
        assert page.locator(".bracket-side.won").count() >= 4  # three byes and the result
        context.close()
        browser.close()
    assert not errors, errors


SECOND = signed_in_users_script(("fay", "gus", "hal")) + _cup(
    'User.objects.get(username="boss")', "Table Cup", 4) + """
m = Match.objects.get(tournament=t, round=1, player_b__isnull=False)
out["a"] = m.player_a.username
out["b"] = m.player_b.username
out["table"] = m.table_id
print("SECOND=" + json.dumps(out))
"""


def test_a_winner_reading_the_result_at_the_table_is_taken_to_the_next_match(site):
    """Two winners left reading the game-over panel of their first match got only a toast when
    the final opened, and lost it as absent 30 s later. A player at a finished table is now
    taken to their next match after a few seconds, unless they choose to stay."""
    from playwright.sync_api import sync_playwright

    base, _data, env = site
    data = printed_json(manage(env, "shell", "-c", SECOND, capture_output=True,
                               text=True).stdout, "SECOND")
    errors: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        context, page = _phone(browser, base, data[data["a"]], errors)
        old = f"{base}/tables/{data['table']}/"
        page.goto(old)
        page.wait_for_selector(".tbl-conn[data-state=open]", timeout=WAIT)
        # the opponent resigns at the table (in the server's process, whose channel layer
        # carries the notice of the next match: the in-memory one reaches no other process)
        other, loser = _phone(browser, base, data[data["b"]], errors)
        loser.goto(old)
        loser.wait_for_selector(".tbl-conn[data-state=open]", timeout=WAIT)
        loser.evaluate("() => window.ginTable.resign()")
        page.wait_for_selector("#table-app[data-status=finished]", timeout=WAIT)
        # the final (against the top seed, who had a bye) opens at once: the toast says so,
        # and a few seconds later the page goes there
        toast = page.locator(".notify-toast", has_text="Your match in Table Cup is ready")
        toast.wait_for(timeout=WAIT)
        assert "taking you there in 5 s" in toast.text_content()
        page.wait_for_function("old => location.href !== old", arg=old, timeout=WAIT)
        assert re.fullmatch(rf"{re.escape(base)}/tables/\d+/", page.url), page.url
        page.wait_for_selector(".tbl-conn[data-state=open]", timeout=WAIT)
        other.close()
        context.close()
        browser.close()
    assert not errors, errors
