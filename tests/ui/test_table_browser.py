"""The table in a real browser: headless Chromium (Debian's, driven by Playwright) against a
real Daphne serving HTTP and WebSockets, on its own SQLite file and in-memory channel layer.

One game against the computer (Easy; Celery runs eagerly, so the bot answers at once):
log in, start from the lobby, play turns by clicking the piles and the cards, check that the
opponent's hidden cards never reach the page, reorder by keyboard, chat (escaped), drop the
socket and resume, resign and see the game-over screen; and a 360 x 740 phone viewport with
nothing wider than the screen. Screenshots go to pytest's tmp_path.
"""
from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path

import pytest

from tests.support.browser import hidden_from, log_in, require_chromium, strings_in
from tests.support.servers import site_with_users

pytestmark = [pytest.mark.browser, pytest.mark.backend_independent]

PASSWORD = "a-Strong-pass-123"

require_chromium()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A Daphne process on a free port with a migrated SQLite file and one player."""
    tmp = tmp_path_factory.mktemp("browser")
    with site_with_users(tmp, ('anna',), PASSWORD) as base:
        yield {"base": base, "db": tmp / "db.sqlite3", "tmp": tmp}


@pytest.fixture(scope="module")
def browser(chromium):
    return chromium


def _table_state(db: Path, table_id: int) -> tuple[int, dict]:
    con = sqlite3.connect(db)
    try:
        row = con.execute(
            "SELECT version, state FROM games_table WHERE id = ?", (table_id,)
        ).fetchone()
    finally:
        con.close()
    return row[0], json.loads(row[1])


def _settled_state(page, db: Path, table_id: int) -> dict:
    """The stored state at exactly the version the page shows (the bot may still be moving)."""
    for _ in range(100):
        version, state = _table_state(db, table_id)
        shown = _version(page)
        if shown == version:
            return state
        if shown < version:
            page.wait_for_function(
                "v => +document.querySelector('.tbl').dataset.version >= v", arg=version
            )
        else:
            time.sleep(0.05)
    pytest.fail("the page and the database never showed the same version")


def _assert_no_hidden_cards(page, db, table_id):
    """No card hidden from this player (the opponent's concealed cards, the stock, a knocker's
    face-down discard) is anywhere in the page: its cards, its data, its labels, its live
    region. The result panel, the score sheet and the lines before this hand's deal may show
    an earlier hand, whose cards were all shown at its end."""
    state = _settled_state(page, db, table_id)
    me = page.evaluate("window.ginTable.mySeat")
    hidden = hidden_from(state, me)
    if not hidden:
        return  # the game is over: everything is public
    outside = "els => els.filter(e => !e.closest('.tbl-panel, dialog'))"
    shown = set(page.eval_on_selector_all(
        "[data-card]", f"els => ({outside})(els).map(e => e.dataset.card)"
    ))
    assert not shown & hidden, (me, shown & hidden, state["hands"], state["known"],
                                page.evaluate("JSON.stringify(window.ginTable.frame.you)"))
    page_data = json.loads(page.text_content("#table-data"))
    frame = page.evaluate("JSON.parse(JSON.stringify(window.ginTable.frame))")
    blobs = []
    # The page's embedded data is the snapshot it was loaded with: compare it only with the
    # state of that same version (later, the player's own old cards may be hidden from them,
    # e.g. a card they knocked with face down, without anything having leaked).
    if (page_data.get("snapshot") or {}).get("version") == _version(page):
        # Its view may carry the previous hand's result, like any frame's (see below).
        snapshot = dict(page_data["snapshot"])
        snapshot["view"] = {k: v for k, v in (snapshot.get("view") or {}).items()
                            if k != "last_hand"}
        blobs.append({**page_data, "snapshot": snapshot})
    view = dict(frame.get("view") or {})
    view.pop("last_hand", None)
    events = frame.get("events") or []
    if any(e.get("kind") in ("hand_over", "deal") for e in events):
        events = []
    blobs.append({**frame, "view": view, "events": events})
    for blob in blobs:
        assert not set(strings_in(blob)) & hidden
    # nor is one named to a screen reader ("king of spades")
    labels = page.eval_on_selector_all(
        "[aria-label]", f"els => ({outside})(els).map(e => e.ariaLabel)"
    )
    lines = page.eval_on_selector_all("#tbl-live p", "els => els.map(e => e.textContent)")
    start = max(
        (i for i, t in enumerate(lines) if t.startswith(f"Hand {state['hand_number']}:")),
        default=0,
    )
    spoken = " ".join(labels + lines[start:]).lower()
    for c in hidden:
        assert f" {_card_name(c)}" not in f" {spoken}", c
    assert "seed" not in json.dumps(frame["view"])


RANK_NAMES = dict(zip("A23456789TJQK", ["ace", "2", "3", "4", "5", "6", "7", "8", "9", "10",
                                        "jack", "queen", "king"], strict=True))
SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}


def _card_name(text: str) -> str:
    return f"{RANK_NAMES[text[0]]} of {SUIT_NAMES[text[1]]}"


def _wait_my_turn(page):
    page.wait_for_selector(".tbl.is-my-turn:not(.is-busy)", timeout=15000)


def _version(page) -> int:
    return int(page.get_attribute(".tbl", "data-version"))


def _play_turn(page):
    """One decision by clicks: pass the upcard, draw from the stock, or discard a card."""
    _wait_my_turn(page)
    before = _version(page)
    phase = page.get_attribute(".tbl", "data-phase")
    if phase == "offer":
        page.click("[data-act=pass]")
    elif phase == "draw":
        page.click(".pile-stock")
    elif phase == "discard":
        card = page.eval_on_selector_all(
            ".hand-card:not(.is-taken)", "els => els[els.length - 1].dataset.card"
        )
        sel = f".hand-card[data-card='{card}']"
        page.click(sel)
        assert page.get_attribute(sel, "aria-selected") == "true"
        page.click(sel)  # a second tap deselects: a tap never discards
        assert page.get_attribute(sel, "aria-selected") == "false"
        assert _version(page) == before and page.get_attribute(".tbl", "data-phase") == phase
        page.click(sel)
        page.click(f".tbl-actions [data-act='discard:{card}']")
        page.wait_for_function(
            "c => !document.querySelector(`.hand-card[data-card='${c}']`)", arg=card
        )
    elif phase == "layoff":  # the computer knocked: no lay-offs, carry on
        page.click("[data-act=done]")
    else:
        pytest.fail(f"unexpected phase {phase}")
    page.wait_for_function(
        "v => +document.querySelector('.tbl').dataset.version > v", arg=before
    )
    return phase


def _drag(page, source, target):
    """Press, move past the drag threshold in small steps, release: a pointer-event drag.

    The source is scrolled into view first, as a person would (the mouse cannot press what
    is off screen; earlier clicks on the hand may have scrolled the page down)."""
    page.locator(source).first.scroll_into_view_if_needed()
    a = page.locator(source).first.bounding_box()
    b = page.locator(target).first.bounding_box()
    x, y = a["x"] + a["width"] / 2, a["y"] + a["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 8, y + 8, steps=3)
    page.mouse.move(b["x"] + b["width"] / 2, b["y"] + b["height"] / 2, steps=8)
    page.mouse.up()


def _drag_turn(page):
    """Draw by dragging the stock onto the hand, then drag a card onto the discard pile."""
    while True:
        _wait_my_turn(page)
        if page.get_attribute(".tbl", "data-phase") == "draw":
            break
        _play_turn(page)
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    # The last hand's result, still open, pushes the hand a screen below the stock: close it.
    if page.locator("[data-act=continue]").is_visible():
        page.click("[data-act=continue]")
    before = _version(page)
    # A frame that arrives mid-drag re-renders the table and the drag is lost, as a person's
    # would be: drag again (at most twice more) when nothing happened.
    for attempt in range(3):
        _drag(page, ".pile-stock", ".hand")
        try:
            page.wait_for_selector(".tbl[data-phase=discard].is-my-turn:not(.is-busy)",
                                   timeout=5000 if attempt < 2 else 30000)
            break
        except PlaywrightTimeout:
            assert page.get_attribute(".tbl", "data-phase") == "draw"
    page.wait_for_function(
        "v => +document.querySelector('.tbl').dataset.version > v", arg=before
    )
    card = page.eval_on_selector_all(".hand-card:not(.is-taken)", "els => els[0].dataset.card")
    _drag(page, f".hand-card[data-card='{card}']", ".pile-discard")
    page.wait_for_function(
        "c => !document.querySelector(`.hand-card[data-card='${c}']`)", arg=card
    )
    suit = {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660"}[card[1]]
    said = f"You discarded {'10' if card[0] == 'T' else card[0]}{suit}."
    moves = page.eval_on_selector_all(".tbl-log li", "els => els.map(e => e.textContent)")
    assert said in moves


def test_play_the_computer_in_the_browser(server, browser):
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    page = ctx.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    base = server["base"]
    log_in(page, base, "anna", PASSWORD)
    page.goto(base + "/play/")
    page.select_option("select[name=mode]", "classic")
    page.select_option("select[name=level]", "2")
    page.click(".computer-form button[type=submit]")
    page.wait_for_selector(".tbl-main .hand-card")
    table_id = int(page.get_attribute("#table-app", "data-table-id"))
    page.wait_for_selector(".tbl-conn[data-state=open]")
    assert page.eval_on_selector_all(".hand-card", "els => els.length") in (10, 11)
    _assert_no_hidden_cards(page, server["db"], table_id)

    phases = [_play_turn(page) for _ in range(5)]
    assert "draw" in phases or "discard" in phases
    _drag_turn(page)
    _assert_no_hidden_cards(page, server["db"], table_id)
    moves = page.eval_on_selector_all(".tbl-log li", "els => els.map(e => e.textContent)")
    assert any(m.startswith("Computer") for m in moves)
    live = page.text_content("#tbl-live")
    assert live.strip()
    page.screenshot(path=str(server["tmp"] / "table-desktop.png"), full_page=True)

    # keyboard: Shift+ArrowRight moves the focused card one place to the right
    order = page.eval_on_selector_all(".hand-card", "els => els.map(e => e.dataset.card)")
    page.focus(f".hand-card[data-card='{order[0]}']")
    page.keyboard.press("Shift+ArrowRight")
    new_order = page.eval_on_selector_all(".hand-card", "els => els.map(e => e.dataset.card)")
    assert new_order[:2] == [order[1], order[0]]
    assert page.query_selector(".tbl-sort-btn[aria-pressed=true]") is None  # own order now

    # chat: raw text, never HTML
    page.fill("#tbl-chat-input", "<b>hello</b>")
    page.click(".tbl-chat-form button[type=submit]")
    page.wait_for_selector(".chat-line .chat-text")
    assert page.text_content(".chat-line .chat-text") == "<b>hello</b>"
    assert page.query_selector(".tbl-chat-list b") is None
    # typed past the 300 characters a line may hold, the box keeps 300 (it let 350 stand
    # under a count of 350/300, and refused them only when sent)
    page.click("#tbl-chat-input")
    page.keyboard.insert_text("x" * 320)
    page.keyboard.type("yz")
    assert page.input_value("#tbl-chat-input") == "x" * 300
    assert page.text_content(".tbl-chat-count") == "300/300"
    page.fill("#tbl-chat-input", "")

    # the socket drops: the client reconnects and resumes from the snapshot
    version = _version(page)
    page.evaluate("window.ginTable.socket.ws.close()")
    page.wait_for_selector(".tbl-conn[data-state=offline], .tbl-conn[data-state=connecting]")
    page.wait_for_selector(".tbl-conn[data-state=open]", timeout=15000)
    assert _version(page) >= version
    # what a lost connection meant for the clock was said while it was lost, and goes with it
    assert page.query_selector(".banner-outage") is None
    _play_turn(page)

    # a phone: nothing wider than the screen, big enough cards; the card selected before the
    # reload is selected after it (the game resumed exactly, but with nothing selected)
    chosen = page.evaluate("() => { const t = window.ginTable; const c = t.handCards()[0];"
                           " t.toggleSelect(c); return c; }")
    page.set_viewport_size({"width": 360, "height": 740})
    page.reload()
    page.wait_for_selector(".tbl-main .hand-card")
    page.wait_for_selector(".tbl-conn[data-state=open]")
    assert chosen in page.evaluate("() => window.ginTable.selected")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    too_wide = page.evaluate(
        "[...document.querySelectorAll('.tbl *')].filter(e => {"
        " const r = e.getBoundingClientRect(); return r.width && (r.right > 361 || r.left < -1)"
        " && !e.closest('.sheet-wrap, .visually-hidden, dialog'); }).length"
    )
    assert too_wide == 0
    card_w = page.evaluate(
        "document.querySelector('.hand-card .card').getBoundingClientRect().width"
    )
    assert card_w >= 44
    page.screenshot(path=str(server["tmp"] / "table-phone.png"), full_page=True)
    _assert_no_hidden_cards(page, server["db"], table_id)

    # resign with confirmation: the game-over screen and the rematch offer
    _wait_my_turn(page)
    page.click(".tbl-tool-danger")
    page.click(".tbl-dialog .button-danger")
    page.wait_for_selector(".tbl-panel[data-kind=game-over]")
    text = page.text_content(".tbl-panel")
    assert "You resigned." in text
    assert page.query_selector(".tbl-panel button:has-text('rematch')") is not None
    # on the phone its four buttons stand two by two, each whole and big enough to tap (once
    # the panel's entrance has finished: it grows into place)
    page.evaluate("Promise.all(document.getAnimations().map(a => a.finished))")
    boxes = page.evaluate(
        "[...document.querySelectorAll('.tbl-panel[data-kind=game-over] > .tbl-actions > *')]"
        ".map(b => { const r = b.getBoundingClientRect();"
        " return [Math.round(r.top), r.left, r.right, r.height, b.scrollWidth <= b.clientWidth]; })"
    )
    assert len(boxes) == 4 and len({top for top, *_ in boxes}) == 2, boxes
    assert all(left >= 0 and right <= 360 and h >= 44 and whole
               for _, left, right, h, whole in boxes), boxes
    page.screenshot(path=str(server["tmp"] / "table-over.png"), full_page=True)
    # a rematch against the computer starts at once, and the page goes to it
    page.click(".tbl-panel button:has-text('Offer a rematch')")
    page.wait_for_url(lambda url: f"/tables/{table_id}/" not in url)
    page.wait_for_selector(".tbl-main .hand-card")
    # the old table opened again later stays put, with a way to the rematch (it went to the
    # rematch at every visit: its result could not be read again)
    page.goto(f"{base}/tables/{table_id}/")
    page.wait_for_selector(".tbl-panel[data-kind=game-over] a:has-text('Go to the rematch')")
    page.wait_for_timeout(1500)  # the move to the rematch came 0.9 s after the frame
    assert page.url.endswith(f"/tables/{table_id}/")
    assert errors == []
    ctx.close()


def test_a_click_or_a_drag_that_spans_a_frame_in_flight_is_kept(server, browser):
    """Frames draw the table again at any moment (the computer's moves, a presence change),
    so a press may end after what it began on was drawn again. A click on a card must still
    select it (a rebuilt hand sent it to the list, not to a card, and it was lost), a drag
    must move the card itself (it moved a stale copy into the new hand), and a move button
    must still make its move."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, reduced_motion="reduce")
    page = ctx.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    log_in(page, server["base"], "anna", PASSWORD)
    page.goto(server["base"] + "/play/")
    page.select_option("select[name=mode]", "straight")  # no upcard offer to wait out
    page.select_option("select[name=level]", "1")
    page.click(".computer-form button[type=submit]")
    page.wait_for_selector(".tbl-main .hand-card")
    page.wait_for_selector(".tbl-conn[data-state=open]")
    shown = "els => els.map(e => e.dataset.card)"
    order = page.eval_on_selector_all(".hand-card", shown)
    elements = page.eval_on_selector_all(".hand-card", "els => (window.__cards = els).length")
    assert elements == len(order)

    def centre(card):
        box = page.locator(f".hand-card[data-card='{card}']").bounding_box()
        return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2

    # a click: pressed, the frame's render, released
    card = order[2]
    page.mouse.move(*centre(card))
    page.mouse.down()
    page.evaluate("window.ginTable.render()")
    page.mouse.up()
    page.wait_for_selector(f".hand-card[data-card='{card}'][aria-selected=true]", timeout=3000)
    assert page.evaluate("window.ginTable.selected") == [card]
    # the hand was drawn again, on the same elements
    assert page.eval_on_selector_all(
        ".hand-card", "els => els.every((e, i) => e === window.__cards[i])")

    # a drag of the first card onto the fifth, with a render as it starts and on the way
    first, fifth = order[0], order[4]
    x0, y0 = centre(first)
    x1, y1 = centre(fifth)
    page.mouse.move(x0, y0)
    page.mouse.down()
    page.mouse.move(x0 + 12, y0, steps=2)
    page.evaluate("window.ginTable.render()")
    page.mouse.move((x0 + x1) / 2, y1, steps=4)
    page.evaluate("window.ginTable.render()")
    page.mouse.move(x1 + 20, y1, steps=4)
    page.evaluate("window.ginTable.render()")
    page.mouse.up()
    after = page.eval_on_selector_all(".hand-card", shown)
    assert sorted(after) == sorted(order) and len(after) == len(order), (order, after)
    assert after.index(first) >= 3, (order, after)  # it went where it was dropped
    assert page.evaluate("window.ginTable.order") == after
    assert page.query_selector(".drag-ghost, .drag-source") is None

    # a move button, pressed as a frame redraws the prompt: the move is made
    page.wait_for_selector(".tbl.is-my-turn:not(.is-busy) .tbl-actions button", timeout=15000)
    act = "pass" if page.query_selector("[data-act=pass]") else "draw:stock"
    version = _version(page)
    page.hover(f"[data-act='{act}']")
    page.mouse.down()
    page.evaluate("window.ginTable.render()")
    page.mouse.up()
    page.wait_for_function("v => +document.querySelector('.tbl').dataset.version > v",
                           arg=version, timeout=5000)
    assert errors == []
    ctx.close()


HINT_BUTTON_STATE = """(() => { const b = document.querySelector('.button-hint');
  const t = window.ginTable;
  return [b.checkVisibility(), t.myTurn || b.disabled]; })()"""


def test_hints_in_a_casual_game_against_the_computer(server, browser):
    """Hint, on the player's turn: the toast says the Hard computer's move, its card is
    selected so that the button making it is on offer, and that button makes it."""
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True,
                              is_mobile=True, reduced_motion="reduce")
    page = ctx.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    log_in(page, server["base"], "anna", PASSWORD)
    page.goto(server["base"] + "/play/")
    page.select_option("select[name=mode]", "classic")
    page.select_option("select[name=level]", "1")
    page.click(".computer-form button[type=submit]")
    page.wait_for_selector(".tbl-conn[data-state=open]")
    kinds = set()
    for _ in range(6):
        page.wait_for_selector(".tbl.is-my-turn:not(.is-busy) .button-hint", timeout=15000)
        version = _version(page)
        page.tap(".button-hint")
        page.wait_for_function("v => window.ginTable.hint && window.ginTable.hint.version === v",
                               arg=version, timeout=5000)
        action = page.evaluate("window.ginTable.hint.action")
        assert action in page.evaluate("window.ginTable.legal")
        page.wait_for_selector(".toast[data-key=hint]:has-text('Hint:')")
        # asked again: the same hint, in a toast that replaces the first
        page.evaluate("document.querySelector('.toast[data-key=hint]').dataset.first = '1'")
        page.tap(".button-hint")
        page.wait_for_function("a => !document.querySelector('.toast[data-first]')"
                               " && document.querySelectorAll('.toast[data-key=hint]').length === 1"
                               " && window.ginTable.hint.action === a", arg=action)
        card = action.split(":")[1][:2] if action.split(":")[0] in (
            "discard", "knock", "gin") else None
        if card:
            assert page.evaluate("window.ginTable.selected") == [card]
        elif action in ("draw:stock", "draw:discard", "take_upcard"):
            pile = ".pile-stock" if action == "draw:stock" else ".pile-discard"
            assert page.query_selector(f"{pile}.is-hinted") is not None
        kinds.add(action.split(":")[0])
        page.tap(f".tbl-actions [data-act='{action}']")
        page.wait_for_function("v => +document.querySelector('.tbl').dataset.version > v",
                               arg=version, timeout=5000)
        # the button stays whatever the turn (the sort buttons beside it never jump), and
        # works only on the player's turn
        assert page.evaluate(HINT_BUTTON_STATE) == [True, True]
        # its toast went with its position (and a new hint would have replaced it)
        assert page.query_selector(".toast[data-key=hint]") is None
    assert kinds & {"discard", "knock", "gin"}, kinds  # a card was chosen by a hint
    assert errors == []
    ctx.close()
