"""A tournament on the site started as the README says (`bash scripts/run.sh`: Daphne, and a
Celery worker whose beat runs the tournaments' sweep), in two phone-sized browsers: two
players wait on an arena's page for its start; when the sweep starts it and pairs them, the
notification socket takes each of them to their table (a match not opened in time is a
no-show: they must not have to notice a toast), where each is seated against the other;
when the game is over its panel leads back to the tournament, not to a rematch."""
from __future__ import annotations

import re

import pytest

from tests.support.accounts import PASSWORD
from tests.support.browser import PHONE, log_in, phone_page, require_chromium

pytestmark = [pytest.mark.browser, pytest.mark.backend_independent]

require_chromium()

SETUP = f"""
from datetime import timedelta
from django.contrib.auth import get_user_model
from django.utils import timezone
from allauth.account.models import EmailAddress
from leaderboards.tournaments import services
from leaderboards.tournaments.models import Format, Tournament
users = {{}}
for name in ("tara", "tomo", "torg"):
    u = get_user_model().objects.create_user(name, name + "@example.com", "{PASSWORD}",
                                             is_staff=name == "torg")
    EmailAddress.objects.create(user=u, email=u.email, verified=True, primary=True)
    users[name] = u
t = services.tournament_create(user=users["torg"], name="Quick Arena", format=Format.ARENA,
                               duration_minutes=10, capacity=10, target=50,
                               starts_at=timezone.now() + timedelta(minutes=2))
for name in ("tara", "tomo"):
    services.tournament_enter(tournament_id=t.pk, user=users[name])
print("TOURNAMENT", t.pk)
"""

DUE = """
from datetime import timedelta
from django.utils import timezone
from leaderboards.tournaments.models import Tournament
Tournament.objects.filter(pk={pk}).update(starts_at=timezone.now() + timedelta(seconds=3))
"""



def test_players_waiting_on_an_arena_page_are_taken_to_their_match(site, chromium):
    base = site["base"]
    pk = int(re.search(r"TOURNAMENT (\d+)", site.manage_shell(SETUP)).group(1))
    players = {}
    for name in ("tara", "tomo"):
        ctx, page, errors = phone_page(chromium)
        # the notification socket's first frame, hello, says it is open on the page
        ctx.add_init_script(
            "document.addEventListener('notify:hello', () => { window.__hello = true; });")
        log_in(page, base, name, PASSWORD, tap=True)
        page.goto(f"{base}/tournaments/{pk}/")
        page.wait_for_selector("#tournament-live")
        page.wait_for_function("() => window.__hello === true", timeout=15000)
        players[name] = (ctx, page, errors)
    try:
        site.manage_shell(DUE.format(pk=pk))  # the sweep (every 5 s) starts it and pairs them
        tables = set()
        for name, (_, page, _) in players.items():
            page.wait_for_url(re.compile(r".*/tables/\d+/$"), timeout=45000)
            tables.add(page.url)
            page.wait_for_selector(".tbl-conn[data-state=open]")
            assert page.evaluate("window.ginTable.mySeat") in (0, 1), name
        assert len(tables) == 1  # one match: the two of them
        # the game over, its panel leads back to the tournament (no rematch, no room)
        _, tara, _ = players["tara"]
        tara.click(".tbl-tool-danger")
        tara.click(".tbl-dialog .button-danger")
        for name, (_, page, _) in players.items():
            page.wait_for_selector(".tbl-panel[data-kind=game-over]", timeout=15000)
            panel = page.inner_text(".tbl-panel")
            assert "Back to the tournament" in panel, (name, panel)
            assert "rematch" not in panel.lower() and "Back to the room" not in panel, panel
        tomo = players["tomo"][1]
        tomo.click(".tbl-panel >> text=Back to the tournament")
        tomo.wait_for_url(f"**/tournaments/{pk}/")
        for name, (_, _, errors) in players.items():
            assert not errors, (name, errors)
    finally:
        for ctx, _, _ in players.values():
            ctx.close()


LONG_WORDS = """
from datetime import timedelta
from django.contrib.auth import get_user_model
from django.utils import timezone
from leaderboards.tournaments import services
from leaderboards.tournaments.models import Format
torg, _ = get_user_model().objects.get_or_create(
    username="lena", defaults={"email": "lena@example.com", "is_staff": True})
t = services.tournament_create(user=torg, name="N" * 80, format=Format.SINGLE,
                               capacity=8, target=50,
                               starts_at=timezone.now() + timedelta(hours=3))
services.tournament_cancel(tournament_id=t.pk, user=torg, reason="<b>" + "r" * 190)
services.tournament_create(user=torg, name="M" * 80, format=Format.SINGLE, capacity=8,
                           target=50, starts_at=timezone.now() + timedelta(hours=3))
from allauth.account.models import EmailAddress
if not get_user_model().objects.filter(username="lwreader").exists():
    u = get_user_model().objects.create_user("lwreader", "lwreader@example.com", PASSWORD)
    EmailAddress.objects.create(user=u, email=u.email, verified=True, primary=True)
print("TOURNAMENT", t.pk)
""".replace("PASSWORD", repr(PASSWORD))


def test_one_long_word_leaves_the_tournament_pages_a_phones_width(site, chromium):
    """A cancel reason of one 200-letter word made the list 1,090 px wide on a 390 px phone,
    for every visitor; a name of one 80-letter word did the same to its page, and to the
    lobby's and the rooms' "Tournaments starting soon"."""
    pk = int(re.search(r"TOURNAMENT (\d+)", site.manage_shell(LONG_WORDS)).group(1))
    ctx, page, errors = phone_page(chromium)
    for path in ("/tournaments/", f"/tournaments/{pk}/", "/play/", "/play/classic/", "login",
                 "/play/", "/play/classic/"):
        if path == "login":  # (a player's rows have Enter buttons: wider than a visitor's)
            log_in(page, site["base"], "lwreader")
            continue
        page.goto(site["base"] + path)
        if "tournaments" in path:
            assert "rrrr" in page.content() and "&lt;b&gt;" in page.content()
        else:
            assert "M" * 80 in page.content()
        # (against the phone's width: a phone's browser widens its window to a page too
        # wide, zoomed out, so the window's own width would always match)
        wide = page.evaluate("document.documentElement.scrollWidth") - PHONE["width"]
        assert wide <= 0, f"{path} is {wide} px wider than the phone"
    assert errors == []
    ctx.close()


BRACKET = """
from django.contrib.auth import get_user_model
from leaderboards.tournaments.models import Format
from tests.support.tournaments import create_tournament, enter_and_start, rated_players
User = get_user_model()
staff = User.objects.create_user("bkstaff", "bkstaff@example.com", "x", is_staff=True)
players = rated_players(
    lambda name: User.objects.create_user("bk" + name, "bk" + name + "@example.com", "x"), 8)
t = create_tournament(staff, name="Phone Bracket", format=Format.SINGLE, capacity=8, target=50)
enter_and_start(t, players)
print("TOURNAMENT", t.pk)
"""

RESIGN_PLAYING = """
from leaderboards.tournaments.models import Match, MatchStatus, Tournament
from tests.support.tournaments import resign_match
for m in Match.objects.filter(tournament_id={pk}, status=MatchStatus.PLAYING,
                              table__isnull=False):
    resign_match(m, m.player_b_id)
print("STATUS", Tournament.objects.get(pk={pk}).status)
"""

REDRAW = """
from django.db.models import F
from leaderboards.tournaments.models import Tournament
Tournament.objects.filter(pk={pk}).update(version=F("version") + 1)
"""


def test_a_bracket_wider_than_a_phone_shows_a_shadow_on_the_side_with_more(site, chromium):
    """The bracket's shadows were CSS covers of their own while every other box that scrolls
    sideways had site.js's marks; and a part the page redraws (every 5 s while a tournament
    runs) came back with no marks at all. One mechanism serves both, redraws included."""
    pk = int(re.search(r"TOURNAMENT (\d+)", site.manage_shell(BRACKET)).group(1))
    ctx, page, errors = phone_page(chromium)
    page.goto(f"{site['base']}/tournaments/{pk}/")
    page.wait_for_selector(".bracket")

    def classes(selector=".bracket"):
        return page.evaluate("s => [...document.querySelector(s).classList]", selector)

    assert "scroll-right" in classes() and "scroll-left" not in classes()
    page.evaluate("document.querySelector('.bracket').dataset.drawn = 'first'")
    site.manage_shell(REDRAW.format(pk=pk))  # the live part is drawn again at the next poll
    for _ in range(100):
        if page.evaluate("document.querySelector('.bracket').dataset.drawn") is None:
            break
        page.wait_for_timeout(200)
    assert page.evaluate("document.querySelector('.bracket').dataset.drawn") is None
    assert "scroll-right" in classes()
    page.evaluate("(() => { const b = document.querySelector('.bracket');"
                  " b.scrollLeft = b.scrollWidth; })()")
    for _ in range(50):
        if "scroll-right" not in classes():
            break
        page.wait_for_timeout(100)
    assert "scroll-left" in classes() and "scroll-right" not in classes()
    # played to the end, every winner marked: each "✓" has a hidden "(won)" for screen
    # readers, which (placed out of the bracket's own scroll box, in the later rounds' columns
    # beyond the screen) made the page 551 px wide on a 390 px phone
    for _ in range(60):  # (each round's tables are opened by the worker)
        if "STATUS finished" in site.manage_shell(RESIGN_PLAYING.format(pk=pk)):
            break
        page.wait_for_timeout(1000)
    page.reload()
    assert page.locator(".bracket-side.won").count() == 7  # 4 + 2 + 1 matches
    wide = page.evaluate("document.documentElement.scrollWidth") - PHONE["width"]
    assert wide <= 0, f"the bracket's page is {wide} px wider than the phone"
    assert errors == []
    ctx.close()
