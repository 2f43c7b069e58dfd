"""The two-phones test's page helpers (tests/ui/test_two_phones.py): a phone's browser,
the cards as the page names them, what a page shows and holds (for the leak check), taps and
finger drags, signing up through the emailed link, and the room list."""
from __future__ import annotations

import json
import re
import sqlite3
import time
from pathlib import Path

import pytest

from tests.support.browser import hidden_from, log_in, strings_in

PASSWORD = "Felt-and-Cards-42"
PHONE = {
    "viewport": {"width": 360, "height": 740},
    "device_scale_factor": 2,
    "is_mobile": True,
    "has_touch": True,
    "user_agent": (
        "Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) "
        "Chrome/124.0.0.0 Mobile Safari/537.36"
    ),
}
RANKS = "A23456789TJQK"
SUIT_SYMBOLS = {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660"}
RANK_NAMES = dict(zip(RANKS, ["ace", "2", "3", "4", "5", "6", "7", "8", "9", "10",
                              "jack", "queen", "king"], strict=True))
SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
MAX_MOVES = 1500
WAIT = 15000  # ms: generous for a loaded CI machine; the waits end as soon as the DOM is ready


def card_label(card: str) -> str:
    return ("10" if card[0] == "T" else card[0]) + SUIT_SYMBOLS[card[1]]


def card_name(card: str) -> str:
    return f"{RANK_NAMES[card[0]]} of {SUIT_NAMES[card[1]]}"


def card_value(card: str) -> tuple[int, int]:
    r = RANKS.index(card[0]) + 1
    return min(r, 10), r


def table_row(db: Path, table_id: int) -> tuple[int, dict]:
    con = sqlite3.connect(db, timeout=5)
    try:
        version, state = con.execute(
            "SELECT version, state FROM games_table WHERE id = ?", (table_id,)
        ).fetchone()
    finally:
        con.close()
    return version, json.loads(state) if state else {}


# One round trip per look: what the page shows, as the player would read it, and everything
# it holds for the hand in play (the result panel and the score sheet may show the previous
# hand, whose cards were all shown at its end), for the leak check.
LOOK = """(handNo) => {
  const t = document.querySelector('.tbl');
  const panel = document.querySelector('.tbl-panel');
  const outside = e => !e.closest('.tbl-panel, dialog');
  const lines = [...document.querySelectorAll('.tbl-log li, #tbl-live p')].map(e => e.textContent);
  let start = 0;
  lines.forEach((s, i) => { if (s.startsWith(`Hand ${handNo}:`)) start = i; });
  return {
    version: +t.dataset.version, status: t.dataset.status, phase: t.dataset.phase,
    turn: t.classList.contains('is-my-turn') && !t.classList.contains('is-busy'),
    panel: panel && !panel.hidden ? panel.dataset.kind : null,
    acts: [...document.querySelectorAll('.tbl-prompt [data-act]')].map(b => b.dataset.act),
    hand: [...document.querySelectorAll('.hand-card')].map(e => ({
      card: e.dataset.card, inMeld: e.classList.contains('in-meld'),
      taken: e.classList.contains('is-taken'), suggested: e.classList.contains('is-suggested')})),
    stockLive: !!document.querySelector('.pile-stock.is-live'),
    top: (document.querySelector('.pile-discard .pile-top') || {dataset: {}}).dataset.card || null,
    width: document.documentElement.scrollWidth, title: document.title,
    seat: window.ginTable.mySeat,
    cards: [...document.querySelectorAll('[data-card]')].filter(outside).map(e => e.dataset.card),
    labels: [...document.querySelectorAll('[aria-label]')].filter(outside).map(e => e.ariaLabel),
    said: lines.slice(start).join(' '),
    frame: JSON.parse(JSON.stringify(window.ginTable.frame)),
  };
}"""

# Scroll an element into view and return the point a finger would touch, after checking
# that nothing covers it there.
TARGET = """(el) => {
  el.scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'});
  const r = el.getBoundingClientRect();
  const x = r.left + r.width / 2, y = r.top + Math.min(r.height / 2, 30);
  const hit = document.elementFromPoint(x, y);
  if (!hit || !(el === hit || el.contains(hit))) {
    return {error: 'covered by ' + (hit ? hit.outerHTML.slice(0, 120) : 'nothing')};
  }
  if (el.disabled) return {error: 'disabled'};
  return {x, y, w: r.width, h: r.height};
}"""


def look_at(page, hand_no=None) -> dict:
    return page.evaluate(LOOK, hand_no)


def wait_version(page, v: int) -> None:
    page.wait_for_function(
        "v => +document.querySelector('.tbl').dataset.version >= v", arg=v, timeout=WAIT
    )


def tap_on(page, selector: str) -> None:
    """A finger tap on the element (touch events, then the click the browser makes)."""
    previous = None
    for _ in range(80):
        t = page.locator(selector).first.evaluate(TARGET)
        if "error" not in t:
            # Tap only where the element has come to rest: the page scrolls results and the
            # next move into view smoothly, and a tap at a position read mid-scroll misses.
            if previous is not None and (previous["x"], previous["y"]) == (t["x"], t["y"]):
                assert t["w"] >= 24 and t["h"] >= 24, (selector, t)  # a finger can hit it
                page.touchscreen.tap(t["x"], t["y"])
                return
            previous = t
        else:
            previous = None
        time.sleep(0.05)  # an animation or a frame in flight: look again
    pytest.fail(f"cannot tap {selector}: {t['error']}")


RECT = """(el) => {
  const r = el.getBoundingClientRect();
  return {x: r.left + r.width / 2, y: r.top + r.height / 2, top: r.top, bottom: r.bottom};
}"""


def finger_drag(page, source: str, target: str) -> None:
    """Press a finger on ``source``, slide it to ``target`` and lift it (raw touch events,
    as a phone sends them)."""
    page.locator(".tbl-piles").evaluate("el => el.scrollIntoView({block: 'start'})")
    a = page.locator(source).first.evaluate(RECT)
    b = page.locator(target).first.evaluate(RECT)
    height = page.evaluate("innerHeight")
    assert -1 <= min(a["top"], b["top"]) and max(a["bottom"], b["bottom"]) <= height + 1, (a, b)
    cdp = page.context.new_cdp_session(page)
    try:
        touch = lambda kind, pts: cdp.send(  # noqa: E731
            "Input.dispatchTouchEvent", {"type": kind, "touchPoints": pts}
        )
        touch("touchStart", [{"x": a["x"], "y": a["y"]}])
        steps = 12
        for i in range(1, steps + 1):
            x = a["x"] + (b["x"] - a["x"]) * i / steps
            y = a["y"] + (b["y"] - a["y"]) * i / steps
            touch("touchMove", [{"x": x, "y": y}])
        touch("touchEnd", [])
    finally:
        cdp.detach()


def settle(pages, db: Path, table_id: int) -> tuple[dict, list[dict]]:
    """The stored state and a look at each page once both show its version (nothing moves
    on its own here: two people, no bots, and no clock runs out in a test this fast)."""
    deadline = time.monotonic() + WAIT / 1000
    while time.monotonic() < deadline:
        version, state = table_row(db, table_id)
        looks = [look_at(p, state.get("hand_number")) for p in pages]
        if all(lk["version"] == version for lk in looks):
            return state, looks
        for p, lk in zip(pages, looks, strict=True):
            if lk["version"] < version:
                wait_version(p, version)
        if max(lk["version"] for lk in looks) > version:
            time.sleep(0.02)
    pytest.fail("the pages never showed the stored version")


def assert_no_leak(page, got: dict, state: dict, check_page_data: bool = False) -> None:
    """``got``: a look at ``page`` at the stored state's version."""
    hidden = hidden_from(state, got["seat"])
    if not hidden:
        return
    seat = got["seat"]
    assert not set(got["cards"]) & hidden, ("cards on the page", seat, set(got["cards"]) & hidden)
    frame = got["frame"]
    view = dict(frame.get("view") or {})
    view.pop("last_hand", None)  # the previous hand, shown in full at its end
    events = frame.get("events") or []
    if any(e.get("kind") in ("hand_over", "deal") for e in events):
        events = []  # this frame also closed the previous hand (its showdown)
    blob = set(strings_in({**frame, "view": view, "events": events}))
    assert not blob & hidden, ("frame", seat, blob & hidden)
    assert "seed" not in view
    if check_page_data:
        data = json.loads(page.text_content("#table-data"))
        assert not set(strings_in(data)) & hidden, ("page data", seat)
    spoken = " " + " ".join(got["labels"]).lower()
    for c in hidden:
        assert f" {card_name(c)}" not in spoken, ("label", seat, c)
        assert card_label(c) not in got["said"], ("log", seat, c, got["said"])


def mail_link(mail_dir: Path, email: str) -> str:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        for f in sorted(mail_dir.glob("*.log")):
            text = f.read_text()
            if f"To: {email}" in text:
                m = re.search(r"https?://\S+/accounts/confirm-email/\S+", text)
                assert m, text
                return m.group(0)
        time.sleep(0.1)
    pytest.fail(f"no verification email to {email}")


def sign_up(page, site, username: str) -> None:
    base = site["base"]
    email = f"{username}@example.com"
    page.goto(base + "/")
    page.locator("[data-nav-toggle]").tap()
    page.locator(".nav-links a.nav-signup").tap()
    page.wait_for_url("**/accounts/signup/**")
    page.fill("input[name=username]", username)
    page.fill("input[name=email]", email)
    page.fill("input[name=password1]", PASSWORD)
    page.fill("input[name=password2]", PASSWORD)
    page.locator("form.form button[type=submit]").tap()
    page.wait_for_url("**/accounts/confirm-email/**")
    assert "email" in page.text_content("main").lower()
    link = mail_link(site["mail"], email)
    assert link.startswith(base + "/"), link  # the link points at this site
    page.goto(link)
    assert email in page.text_content("main")
    with page.expect_navigation():
        page.locator("form.form button[type=submit]").tap()  # "Yes, confirm it"
    if not page.locator("nav button.link-button:has-text('Log out')").count():
        log_in(page, base, username, PASSWORD, tap=True)
    assert page.locator("nav button.link-button:has-text('Log out')").count() == 1
    assert page.evaluate("document.documentElement.scrollWidth") <= 360


def open_room(page, slug: str) -> None:
    page.locator("[data-nav-toggle]").tap()
    page.locator(".nav-links a:has-text('Play')").tap()
    page.wait_for_url("**/play/")
    page.locator(f".room-card[data-room={slug}] h3 a").tap()
    page.wait_for_url(f"**/play/{slug}/")


IN_VIEW = """(sel) => {
  const r = document.querySelector(sel).getBoundingClientRect();
  return r.top >= -8 && r.top < innerHeight * 0.6;  // its title on the screen
}"""


# The last input events each page saw (type, target, ms since the previous one), for the
# message of a failed move.
EVENT_LOG = """(() => {
  const log = window.__events = [];
  let last = performance.now();
  for (const type of ['touchstart', 'touchend', 'touchcancel', 'pointerdown', 'pointerup',
                      'pointercancel', 'click', 'contextmenu']) {
    window.addEventListener(type, (e) => {
      const now = performance.now();
      const t = e.target && e.target.nodeType === 1 ? e.target : null;
      log.push([type, t ? t.tagName + '.' + t.className : '-', Math.round(now - last)]);
      last = now;
      if (log.length > 16) log.shift();
    }, true);
  }
})()"""

DIAG = """() => {
  const t = window.ginTable, vv = window.visualViewport;
  return {events: window.__events, selected: t.selected, busy: t.busy, scrollY: window.scrollY,
          vv: vv && [vv.scale, vv.offsetTop, vv.pageTop],
          active: document.activeElement && document.activeElement.outerHTML.slice(0, 80),
          cards: [...document.querySelectorAll('.hand-card')].map(e => {
            const r = e.getBoundingClientRect();
            const sel = e.getAttribute('aria-selected');
            return [e.dataset.card, sel, Math.round(r.left), Math.round(r.top)];
          })};
}"""


def diag(page) -> dict:
    """What the page holds when a tap did not do what it should (printed on failure)."""
    return page.evaluate(DIAG)


def close_hand_result(page, shot: Path | None = None) -> None:
    """Read the hand's result (the page has brought it into view), then tap "Continue"."""
    page.wait_for_function(IN_VIEW, arg=".tbl-panel[data-kind=hand]", timeout=WAIT)
    if shot:
        page.screenshot(path=str(shot))
    text = page.text_content(".tbl-panel[data-kind=hand]")
    assert re.search(r"Hand \d+:", text), text
    assert "Deadwood" in text or "nobody scores" in text, text
    tap_on(page, ".tbl-panel[data-kind=hand] [data-act=continue]")
    page.wait_for_selector(".tbl-panel[data-kind=hand]", state="hidden", timeout=WAIT)
