"""The replay viewer in a real browser at phone size: step through a whole game.

A finished game (124 moves, three hands: an undercut with a lay-off, then two knocks) is
stored in a real Daphne's database; a 360 px wide phone opens /games/<id>/ and steps forward
through every move with the ▶ button, checking at each step that the page shows exactly the
position of that move (every seat's cards face up, the stock count, the move's sentence),
that each hand's showdown appears on the move that ends it and the score sheet fills in, and
that nothing is wider than the screen. Then the arrow keys, Home/End, the slider, the hand
jumps and a ``?ply=N`` deep link.
"""
from __future__ import annotations

import json
import re

import pytest

from tests.support.browser import require_chromium
from tests.support.servers import daphne, migrated_and_set_up, server_env

pytestmark = [pytest.mark.browser, pytest.mark.backend_independent]

require_chromium()

PHONE = {
    "viewport": {"width": 360, "height": 740},
    "device_scale_factor": 2,
    "is_mobile": True,
    "has_touch": True,
}
WAIT = 15000

MAKE_GAME = """
from accounts.models import User
from tests.support.records import finished_game
ann = User.objects.create_user("ann", "ann@example.com", "x-Strong-pass-1")
bob = User.objects.create_user("bob", "bob@example.com", "x-Strong-pass-1")
game = finished_game([ann, bob], mode="classic", seed=61)
finished_game([ann, bob], mode="rummy", seed=5)
from leaderboards.stats.services import stats_rebuild
stats_rebuild()
holly = finished_game([ann, bob], mode="hollywood", seed=2)  # (after: the tabs are two modes')
print("HOLLY", holly.pk)
print("GAME", game.pk)
erin = User.objects.create_user("erin6", "erin@example.com", "x-Strong-pass-1")
hank = User.objects.create_user("hank9", "hank@example.com", "x-Strong-pass-1")
print("THREE", finished_game([erin, hank, None], mode="rummy", seed=4, bot_level=2).pk)
long = User.objects.create_user("w" * 150, "w@example.com", "x-Strong-pass-1")
print("LONG", finished_game([long, bob], mode="classic", seed=7).pk)
"""

SEATS = """() => [...document.querySelectorAll('[data-replay-board] [data-seat]')].map(
  s => [...s.querySelectorAll('[data-card]')].map(c => c.dataset.card).join(''))"""


@pytest.fixture(scope="module")  # both tests only read the two stored games
def site(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("replay")
    env = server_env(tmp)
    out = migrated_and_set_up(env, MAKE_GAME)
    game_id = int(re.search(r"GAME (\d+)", out).group(1))
    holly = int(re.search(r"HOLLY (\d+)", out).group(1))
    long = int(re.search(r"LONG (\d+)", out).group(1))
    three = int(re.search(r"THREE (\d+)", out).group(1))
    with daphne(tmp, env) as base:
        yield {"base": base, "game": game_id, "hollywood": holly, "long": long,
               "three": three}


def _no_overflow(page):
    # (against the phone's width: a phone's browser widens its window to fit a page too
    # wide, zoomed out, and the window's own width then always matched)
    wide = page.evaluate("() => document.documentElement.scrollWidth") - page.viewport_size["width"]
    assert wide <= 0, f"the page is {wide}px wider than the phone"


def test_step_through_a_whole_game_on_a_phone(site, chromium):
    ctx = chromium.new_context(**PHONE)
    page = ctx.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    url = f"{site['base']}/games/{site['game']}/"
    page.goto(url)
    data = json.loads(page.locator("#replay-data").text_content())
    frames = data["frames"]
    last = len(frames) - 1
    assert last == 124
    counter = page.locator("[data-replay-counter]")
    text = page.locator("[data-replay-text]")
    showdown = page.locator("[data-replay-showdown]")
    forward = page.get_by_role("button", name="Forward one move")
    assert page.locator("[data-replay-nojs]").is_hidden()
    _no_overflow(page)
    hands_seen = 0
    for ply in range(last + 1):
        if ply:
            forward.click()
        frame = frames[ply]
        counter.filter(has_text=f"Move {ply} of {last} ").wait_for(timeout=WAIT)
        assert text.text_content() == frame["text"]
        assert page.evaluate(SEATS) == frame["hands"], f"cards at move {ply}"
        stock = page.locator(".replay-pile strong").first.text_content()
        assert stock == str(frame["stock"])
        if frame.get("showdown"):
            hands_seen += len(frame["showdown"])
            assert showdown.is_visible()
            sd = frame["showdown"][0]
            assert f"Hand {sd['hand']}: {sd['outcome_name']}" in showdown.text_content()
            # the board below already holds the next deal, and says so
            title = page.locator("[data-replay-board-title]")
            assert title.is_visible() == (ply != last)
            # the score sheet now shows this hand's result
            done = page.locator(".replay-sheet tbody tr:not(.sheet-future)")
            assert done.count() == hands_seen
            if sd.get("layoffs"):
                assert page.locator(".rcard-layoff").count() == len(sd["layoffs"])
            _no_overflow(page)
        else:
            assert showdown.is_hidden()
    assert hands_seen == 3
    assert forward.is_enabled()
    assert f"ply={last}" in page.url  # the address follows the position
    # keys, slider, hand jumps
    page.keyboard.press("ArrowLeft")
    counter.filter(has_text=f"Move {last - 1} of").wait_for(timeout=WAIT)
    page.keyboard.press("Home")
    counter.filter(has_text=f"Move 0 of {last}").wait_for(timeout=WAIT)
    page.keyboard.press("ArrowRight")
    counter.filter(has_text=f"Move 1 of {last}").wait_for(timeout=WAIT)
    page.keyboard.press("End")
    counter.filter(has_text=f"Move {last} of").wait_for(timeout=WAIT)
    page.locator("[data-replay-slider]").fill("40")
    counter.filter(has_text="Move 40 of").wait_for(timeout=WAIT)
    assert page.evaluate(SEATS) == frames[40]["hands"]
    ends = [f["ply"] for f in frames if f.get("showdown")]
    page.get_by_role("button", name="Next hand").click()
    after = next(e + 1 for e in ends if e + 1 > 40)
    counter.filter(has_text=f"Move {after} of").wait_for(timeout=WAIT)
    page.get_by_role("button", name="Previous hand").click()
    before = max([0] + [e + 1 for e in ends if e + 1 < after])
    counter.filter(has_text=f"Move {before} of").wait_for(timeout=WAIT)
    # a deep link opens at its move
    page.goto(url + f"?ply={ends[0]}")
    counter.filter(has_text=f"Move {ends[0]} of").wait_for(timeout=WAIT)
    assert showdown.is_visible()
    page.goto(url + "?ply=banana")
    counter.filter(has_text=f"Move 0 of {last}").wait_for(timeout=WAIT)
    page.goto(url + "?ply=99999")
    counter.filter(has_text=f"Move {last} of").wait_for(timeout=WAIT)
    assert not errors, errors
    ctx.close()


def test_hollywoods_sheets_on_a_phone(site, chromium):
    """Hollywood's record on a phone showed game 1 alone, with nothing to say games 2 and 3
    were a swipe away (a shadow now says so), and the replay's sheet added the three games
    together (each now has its own columns)."""
    ctx = chromium.new_context(**PHONE)
    page = ctx.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{site['base']}/games/{site['hollywood']}/")
    page.wait_for_selector("[data-replay-sheet] tbody tr")
    sheet = page.locator("section[aria-labelledby=sheet-title] .table-scroll")
    assert sheet.evaluate("b => b.scrollWidth > b.clientWidth")
    assert sheet.evaluate("b => [...b.classList]") == ["table-scroll", "scroll-right"]
    sheet.evaluate("b => { b.scrollLeft = b.scrollWidth; }")
    deadline = 50
    while "scroll-right" in sheet.evaluate("b => b.className") and deadline:
        page.wait_for_timeout(100)
        deadline -= 1
    assert sheet.evaluate("b => [...b.classList]") == ["table-scroll", "scroll-left"]
    games = page.evaluate("""() => [...document.querySelectorAll(
        '[data-replay-sheet] thead th[scope=colgroup]')].map(th => th.textContent)""")
    assert games == ["Game 1", "Game 2", "Game 3"]
    width = page.evaluate("""() => document.querySelector('[data-replay-sheet] tbody tr')
        .querySelectorAll('td').length""")
    assert width == 1 + 3 * 2  # the result, then each game's two seats
    # every heading's words whole on a line: eight columns squeezed "Hand" and "ann" to a
    # letter a line (an outside audit); the sheet scrolls instead
    broken = page.evaluate(r"""() => [...document.querySelectorAll(
        '[data-replay-sheet] thead th')].flatMap((th) => {
      const node = th.firstChild; let start = 0; const out = [];
      for (const word of node.textContent.split(/(?<= )/)) {
        const r = document.createRange();
        r.setStart(node, start); r.setEnd(node, start + word.trimEnd().length);
        start += word.length;
        if (new Set([...r.getClientRects()].map((x) => Math.round(x.top))).size > 1)
          out.push(word);
      }
      return out;
    })""")
    assert broken == []
    assert errors == []
    ctx.close()


def test_a_sheet_of_three_fits_a_390_px_phone(site, chromium):
    """The last column of a game of three (the winner's, here and there) stood under the
    scroll shadow of both sheets, its heading cut to "Co… 2 (" (an outside audit)."""
    ctx = chromium.new_context(**{**PHONE, "viewport": {"width": 390, "height": 844}})
    page = ctx.new_page()
    page.goto(f"{site['base']}/games/{site['three']}/")
    page.wait_for_selector("[data-replay-sheet] tbody tr")
    over = page.evaluate("""() => [...document.querySelectorAll('.table-scroll')]
        .filter((b) => b.querySelector('.score-sheet, [data-replay-sheet]'))
        .map((b) => b.scrollWidth - b.clientWidth)""")
    assert len(over) == 2 and all(o <= 0 for o in over), over
    ctx.close()


def test_profile_statistics_tabs_on_a_phone(site, chromium):
    ctx = chromium.new_context(**PHONE)
    page = ctx.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(f"{site['base']}/u/ann/")
    tabs = page.locator("#profile-statistics [role=tab]")
    assert [t.text_content() for t in tabs.all()] == ["All modes", "Classic Gin", "Basic Rummy"]
    panels = page.locator("#profile-statistics [role=tabpanel]")
    assert [p.is_visible() for p in panels.all()] == [True, False, False]
    assert "Games" in panels.first.text_content()
    tabs.nth(2).click()
    assert [p.is_visible() for p in panels.all()] == [False, False, True]
    assert "Going rummy" in panels.nth(2).text_content()
    assert tabs.nth(2).get_attribute("aria-selected") == "true"
    page.keyboard.press("ArrowLeft")
    assert [p.is_visible() for p in panels.all()] == [False, True, False]
    assert page.locator("#profile-statistics figure").count() == 2  # the two charts
    _no_overflow(page)
    assert not errors, errors
    ctx.close()


def test_a_name_of_150_letters_stays_within_a_phone(site, chromium):
    """A username may have 150 characters with no space: the replay's seat, its piles and
    the other seat's cards ran off a phone (a page 1,700 px wide; an outside audit). The
    name wraps instead: the game's page (its players, the replay, the score sheets), the
    player's profile and games, and the opponent's profile."""
    ctx = chromium.new_context(**PHONE)
    page = ctx.new_page()
    try:
        page.goto(f"{site['base']}/games/{site['long']}/")
        page.locator("[data-replay-board]").wait_for()
        _no_overflow(page)
        page.keyboard.press("End")
        page.locator("[data-replay-showdown]").wait_for()
        _no_overflow(page)
        for path in (f"/u/{'w' * 150}/", f"/u/{'w' * 150}/games/", "/u/bob/"):
            assert page.goto(site["base"] + path).ok, path
            _no_overflow(page)
    finally:
        ctx.close()
