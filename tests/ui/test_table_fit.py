"""During play the whole table fits the screen, from a 360 x 640 phone to a 1920 x 1080
desktop, portrait and landscape: no page scrolling, and the opponent, both piles, the prompt
and its buttons, your seat and every card of your hand are on screen. A rummy table with
melds on it and a gin table in its discard phase are measured at each size; a failing size
leaves a screenshot next to the test's temporary files (its path is in the message)."""
from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from tests.support.browser import log_in, require_chromium
from tests.support.servers import ROOT, manage, server_env, site_with_users

pytestmark = [pytest.mark.browser, pytest.mark.backend_independent]

PASSWORD = "a-Strong-pass-123"
SIZES = [
    (360, 640), (640, 360), (390, 844), (844, 390), (412, 915), (915, 412),
    (768, 1024), (1024, 768), (1280, 800), (1366, 768), (1920, 1080), (1080, 1920),
]

require_chromium()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("fit")
    with site_with_users(tmp, ('alice_audit_long_name',), PASSWORD) as base:
        yield {"base": base, "tmp": tmp}


def _start(browser, base, mode, seats=2, level="1", motion="reduce"):
    ctx = browser.new_context(viewport={"width": 1280, "height": 800}, reduced_motion=motion)
    page = ctx.new_page()
    log_in(page, base, "alice_audit_long_name", PASSWORD)
    page.goto(base + "/play/")
    page.select_option("select[name=mode]", mode)
    page.select_option("select[name=level]", level)
    if seats != 2:
        page.select_option("select[name=seats]", str(seats))
    page.click(".computer-form button[type=submit]")
    page.wait_for_selector(".tbl-main .hand-card")
    page.wait_for_selector(".tbl-conn[data-state=open]")
    return ctx, page


def _resign(page):
    """Resign the page's game if it is still in play: the module plays more games against the
    computer than the 10 one player may hold at once (GAMES_MAX_COMPUTER_TABLES)."""
    playing = ("() => !!window.ginTable && !!window.ginTable.frame"
               " && window.ginTable.frame.table.status === 'playing'"
               " && window.ginTable.mySeat !== null")
    if page.evaluate(playing):
        page.evaluate("() => window.ginTable.resign()")
        page.wait_for_selector(".tbl[data-status=finished]", timeout=15000)


def _close(ctx, page):
    """The test's end: its game resigned (see ``_resign``), its page closed. A failure here
    does not hide the test's own."""
    try:
        _resign(page)
    except Exception as exc:  # the test has failed already, or its page went elsewhere
        print("could not resign:", exc)
    finally:
        ctx.close()


def _move(page, prefer):
    """The seat's move: the first legal move with one of the ``prefer`` prefixes."""
    page.wait_for_selector(".tbl.is-my-turn:not(.is-busy)", timeout=15000)
    legal = page.evaluate("window.ginTable.legal")
    pick = next((a for p in prefer for a in legal if a.startswith(p)), legal[0])
    version = int(page.get_attribute(".tbl", "data-version"))
    page.evaluate(f"window.ginTable.send({json.dumps(pick)})")
    page.wait_for_function("v => +document.querySelector('.tbl').dataset.version > v",
                           arg=version)


# Everything a player needs during play, each checked to lie wholly inside the viewport.
MEASURE = """() => {
  const vw = innerWidth, vh = innerHeight, out = [];
  const inside = (el, what) => {
    const r = el.getBoundingClientRect();
    if (!r.width || !r.height) return;
    if (r.left < -1 || r.top < -1 || r.right > vw + 1 || r.bottom > vh + 1)
      out.push(`${what} at ${[r.left, r.top, r.right, r.bottom].map(Math.round)}`);
  };
  const de = document.documentElement;
  if (de.scrollHeight > vh + 1) out.push(`page is ${de.scrollHeight} px high`);
  if (de.scrollWidth > vw + 1) out.push(`page is ${de.scrollWidth} px wide`);
  const felt = document.querySelector('.tbl-felt');
  const fr = felt.getBoundingClientRect();
  for (const [sel, what] of [['.tbl-opps', 'opponents'], ['.pile-stock', 'stock'],
      ['.pile-discard', 'discard pile'], ['.tbl-prompt', 'prompt'], ['.tbl-me-row', 'your seat'],
      ['.tbl-bar', 'bar']]) {
    const el = document.querySelector(sel);
    if (!el) { out.push(`no ${what}`); continue; }
    inside(el, what);
  }
  for (const sel of ['.pile-stock', '.pile-discard']) {
    const r = document.querySelector(sel).getBoundingClientRect();
    if (r.top < fr.top - 1 || r.bottom > fr.bottom + 1) out.push(`${sel} cut by the felt`);
  }
  const info = document.querySelector('.tbl-me-info');
  if (info && info.scrollWidth > info.clientWidth + 1)
    out.push(`your seat's line cut: ${info.textContent}`);
  const count = info && info.querySelector('.deadwood-count');
  if (count) {
    const c = count.getBoundingClientRect(), i = info.getBoundingClientRect();
    if (c.left < i.left - 1 || c.right > i.right + 1 || count.scrollWidth > count.clientWidth + 1)
      out.push(`the deadwood count cut: ${count.textContent}`);
  }
  const myName = info && info.querySelector(':scope > strong');
  const myRating = info && info.querySelector(':scope > .seat-rating');
  if (myName && myRating && myRating.textContent && myName.getBoundingClientRect().width <= 1
      && myRating.getBoundingClientRect().width > 1)
    out.push(`your rating shown without your name: ${info.textContent}`);
  document.querySelectorAll('.tbl-felt .pile-label').forEach((l) => {
    const r = l.getBoundingClientRect();
    if (r.bottom > fr.bottom + 1) out.push(`the label ${l.textContent} cut by the felt`);
  });
  document.querySelectorAll('.tbl-actions .button')
    .forEach((b) => inside(b, `button ${b.textContent}`));
  document.querySelectorAll('.hand-card .card')
    .forEach((c) => inside(c, `card ${c.closest('.hand-card').dataset.card}`));
  return out;
}"""


SETTLE = """() => new Promise((resolve) => {
  // until the layout (the hand is laid out again when its box resizes) stays put for a frame
  const snap = () => [...document.querySelectorAll('.tbl-main *')].slice(0, 400)
    .map((e) => { const r = e.getBoundingClientRect(); return `${r.left},${r.top},${r.width}`; })
    .join(';');
  let last = snap(), n = 0;
  const tick = () => {
    const now = snap();
    if (now === last || ++n > 60) return resolve(true);
    last = now;
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(() => requestAnimationFrame(tick));
})"""


def _settle(page):
    page.evaluate(SETTLE)


def _check_sizes(page, tmp, name):
    failures = []
    for w, h in SIZES:
        page.set_viewport_size({"width": w, "height": h})
        _settle(page)
        problems = page.evaluate(MEASURE)
        # selecting a card never moves the hand (the space for the lift is reserved)
        first = page.locator(".hand-card").first
        top = page.evaluate("document.querySelector('.hand').getBoundingClientRect().top")
        first.click(position={"x": 6, "y": 30})
        _settle(page)
        moved = page.evaluate("document.querySelector('.hand').getBoundingClientRect().top") - top
        if abs(moved) > 1:
            problems.append(f"selecting a card moved the hand by {moved:.0f} px")
        problems += [f"after selecting: {p}" for p in page.evaluate(MEASURE)]
        first.click(position={"x": 6, "y": 30})  # deselect
        _settle(page)
        if problems:
            shot = tmp / f"fit-{name}-{w}x{h}.png"
            page.screenshot(path=str(shot))
            failures.append(f"{w}x{h} ({shot}): " + "; ".join(problems))
    return failures


# Rummy deals where the player (first to act) holds one meld and each computer one more, so
# the table has melds after a round whatever the computers' seeded play (a random deal may
# have none after forty moves).
RUMMY_DEALS = {
    2: ["AS 2S 3S 7H 9D JC KD 4H 6D QC", "8H 8S 8D 2C 4C 6C TD 3H 5H 9S"],
    4: ["AS 2S 3S 7H 9D JC KD", "8H 8S 8D 2C 4C 6C TD", "3H 4H 5H 9S JS KH 2D",
        "6S 8C TC QC 3D 5D 9H"],
}


def _deal(server, table_id, mode, hands, upcard, stock, dealer=False, seconds=0, then=()):
    """The table's state replaced by a new game of ``mode`` whose first deal is ``hands`` (the
    player's first, then the seats after it), ``upcard`` and the top of the stock; the player
    sits after the dealer, so acts first (or, with ``dealer``, deals). ``seconds`` gives the
    table a turn timer. ``then``: the next hands' deals, each ``(hands, upcard, stock)`` the
    same way (the later ones come from the table's seed, which differs from run to run)."""
    n = len(hands)
    first = "me" if dealer else f"(me - 1) % {n}"
    deals = [([h.split() for h in hs], up, tuple(st))
             for hs, up, st in [(hands, upcard, stock), *then]]
    env = server_env(server["tmp"])
    out = manage(env, "shell", "-c", (
        "from games.models import Table\n"
        "from games import states\n"
        "from games.engine import Deal, new_game\n"
        f"t = Table.objects.get(pk={table_id})\n"
        "me = next(s.index for s in t.seats.all() if s.user_id)\n"
        f"deals = {deals!r}\n"
        f"s = new_game({mode!r}, t.seed, {n}, dealer={first}, deals=[Deal.make("
        f"[hs[(i - me) % {n}] for i in range({n})], up, st) for hs, up, st in deals])\n"
        "t.state = states.dump(s); t.version += 1\n"
        f"t.seconds_per_turn = {seconds}\n"
        "t.save(update_fields=['state', 'version', 'seconds_per_turn'])\n"
        # the computers to act first play up to the player's turn (no move woke them)
        "from games.services.moves import table_bot_move\n"
        "while table_bot_move(table_id=t.pk, version=Table.objects.get(pk=t.pk).version):\n"
        "    pass\n"
        "print('dealt', me, t.version)\n"
    ), capture_output=True, text=True)
    assert "dealt" in out.stdout, out.stdout + out.stderr


@pytest.mark.parametrize("seats", [2, 4])
def test_rummy_table_with_melds_fits_every_screen(server, chromium, seats):
    ctx, page = _start(chromium, server["base"], "rummy", seats)
    try:
        table_id = int(page.get_attribute("#table-app", "data-table-id"))
        _deal(server, table_id, "rummy", RUMMY_DEALS[seats], "KC", ("QS",))
        page.reload()
        page.wait_for_selector(".tbl-conn[data-state=open]")
        for _ in range(40):
            melds = page.evaluate("(window.ginTable.view.table || []).length")
            if melds >= 2 and page.get_attribute(".tbl", "data-phase") == "draw":
                break
            _move(page, ("meld:", "layoff:", "draw:stock", "discard:"))
        page.wait_for_selector(".tbl.is-my-turn:not(.is-busy)", timeout=15000)
        assert page.evaluate("(window.ginTable.view.table || []).length") >= 2
        failures = _check_sizes(page, server["tmp"], f"rummy{seats}")
        assert not failures, "\n".join(failures)
    finally:
        _close(ctx, page)


# The widest line your seat can show in a gin discard: the dealer's chip and a hand of tens
# and faces, whose every discard leaves a two-digit deadwood (a random deal overflowed a
# phone on its side only now and then).
WIDE_HAND = "TS TC KH QH KS QD JS JD 9C 8H"
WIDE_OTHER = "2C 4C 6C 8C 3D 5D 7D 9D AH 6H"  # no meld: nobody knocks


def _until_my_phase(page, phase, prefer):
    """The page reloaded on its new deal, then the player's moves (``prefer``, as ``_move``)
    until their turn comes in ``phase``. The phase is the table's: it is read on the
    player's own turn (while the computer holds the upcard it took, the table is in the
    computer's discard phase)."""
    page.reload()
    page.wait_for_selector(".tbl-conn[data-state=open]")
    for _ in range(6):
        page.wait_for_selector(".tbl.is-my-turn:not(.is-busy)", timeout=15000)
        if page.get_attribute(".tbl", "data-phase") == phase:
            return
        _move(page, prefer)


def test_gin_table_in_its_discard_phase_fits_every_screen(server, chromium):
    ctx, page = _start(chromium, server["base"], "classic")
    try:
        table_id = int(page.get_attribute("#table-app", "data-table-id"))
        _deal(server, table_id, "classic", [WIDE_HAND, WIDE_OTHER], "AS",
              ("2D", "4S", "6D", "2S", "4D"), dealer=True, seconds=90)
        _until_my_phase(page, "discard", ("pass", "draw:stock"))
        page.wait_for_selector(".tbl[data-phase=discard].is-my-turn:not(.is-busy)",
                               timeout=15000)
        assert page.eval_on_selector_all(".hand-card", "els => els.length") == 11
        assert page.locator(".tbl-me-info .chip-dealer").count() == 1
        failures = _check_sizes(page, server["tmp"], "gin")
        assert not failures, "\n".join(failures)
    finally:
        _close(ctx, page)


# The defender's lay-offs: the computer (first to act) holds two runs of clubs and the ace of
# hearts, so it knocks at once; the player holds 8♣ and 10♣ to lay off, and eight more.
LAYOFF_ME = "8C TC 9H 9D 4S 5D 6H 8S KD 2S"
LAYOFF_CPU = "2C 3C 4C 5C 6C 7C JC QC KC AH"

# What laying off needs in view: the felt's whole content (no scrolling inside it), the
# knocker's melds and deadwood in the felt, the prompt's buttons and every card of the hand.
LAYOFF_MEASURE = """() => {
  const out = [], vh = innerHeight, vw = innerWidth;
  const felt = document.querySelector('.tbl-felt'), fr = felt.getBoundingClientRect();
  if (felt.scrollHeight > felt.clientHeight + 1)
    out.push(`the felt scrolls: ${felt.scrollHeight} px in ${felt.clientHeight}`);
  const de = document.documentElement;
  if (de.scrollHeight > vh + 1) out.push(`page is ${de.scrollHeight} px high`);
  const melds = [...document.querySelectorAll('.tbl-felt .tbl-melds .card')];
  if (melds.length < 10) out.push(`${melds.length} cards of the knocker shown`);
  for (const c of melds) {
    const r = c.getBoundingClientRect();
    if (r.top < fr.top - 1 || r.bottom > fr.bottom + 1) {
      out.push('a meld card cut by the felt');
      break;
    }
  }
  for (const el of [...document.querySelectorAll('.tbl-prompt .button, .hand-card')]) {
    const r = el.getBoundingClientRect();
    if (r.top < -1 || r.bottom > vh + 1 || r.left < -1 || r.right > vw + 1)
      out.push(`${el.textContent.trim() || el.dataset.card} off screen`);
  }
  return out;
}"""


def test_laying_off_fits_a_small_phone(server, chromium):
    """Laying off after the computer's knock on a 360 x 640 phone: the felt had 92 px for the
    knocker's melds, their deadwood and both piles (293 px): the melds were cut and the
    deadwood out of sight (an outside audit). Nobody draws then: the piles make room, and the
    hand takes one row of smaller cards on a short screen."""
    ctx, page = _start(chromium, server["base"], "classic", level="3")
    try:
        table_id = int(page.get_attribute("#table-app", "data-table-id"))
        _deal(server, table_id, "classic", [LAYOFF_ME, LAYOFF_CPU], "3H",
              ("2D", "4H", "6D", "9C"), dealer=True)
        _until_my_phase(page, "layoff", ("pass", "draw:stock", "discard:"))
        assert page.get_attribute(".tbl", "data-phase") == "layoff"
        assert {"layoff:8C>0", "layoff:TC>1"} <= set(page.evaluate("window.ginTable.legal"))
        failures = []
        for w, h in ((360, 640), (390, 844), (640, 360), (844, 390), (1280, 800)):
            page.set_viewport_size({"width": w, "height": h})
            _settle(page)
            problems = page.evaluate(LAYOFF_MEASURE)
            if problems:
                shot = server["tmp"] / f"layoff-{w}x{h}.png"
                page.screenshot(path=str(shot))
                failures.append(f"{w}x{h} ({shot}): " + "; ".join(problems))
        assert not failures, "\n".join(failures)
        # and the lay-off is made by tapping: the card, then the meld it goes on
        page.set_viewport_size({"width": 360, "height": 640})
        _settle(page)
        version = int(page.get_attribute(".tbl", "data-version"))
        page.click(".hand-card[data-card='8C']")
        page.click(".tbl-felt .meld.is-target[data-meld='0']")
        page.wait_for_function("v => +document.querySelector('.tbl').dataset.version > v",
                               arg=version)
    finally:
        _close(ctx, page)


# ---------------------------------------------------------------- the hand's result panel

GIN_NOW = "AS 2S 3S 4H 5H 6H 7C 7D 7S KD"  # take the upcard 7H, then gin:KD
OTHER = "2C 3C 4C 8D 9D TD 9H TH JH AC"  # 1 deadwood: the game goes on after the gin


NO_KNOCK = (["AS 3S 5S 7S 9S JS KH QH 2D 4D", WIDE_OTHER], "KC", ("QC", "JD", "TS"))


def _gin_hand(server, chromium, other=OTHER, level="1", later=(NO_KNOCK,)):
    """A game where the player goes gin in the first hand against the computer of ``level``.
    The next hands are dealt too (``later``, ``_deal``'s ``then``): from the table's seed, the
    computer (first to act in the second) now and then took the upcard and knocked at once."""
    ctx, page = _start(chromium, server["base"], "classic", level=level)
    table_id = int(page.get_attribute("#table-app", "data-table-id"))
    _deal(server, table_id, "classic", [GIN_NOW, other], "7H", ("2H", "3H", "6D"),
          then=list(later))
    page.reload()
    page.wait_for_selector(".tbl-conn[data-state=open]")
    page.wait_for_selector(".tbl[data-phase=offer].is-my-turn:not(.is-busy)", timeout=15000)
    _move(page, ("take_upcard",))
    page.wait_for_selector(".tbl[data-phase=discard].is-my-turn:not(.is-busy)", timeout=15000)
    page.evaluate("window.ginTable.send('gin:KD')")
    page.wait_for_selector(".tbl-panel:not([hidden])", timeout=15000)
    assert "gin" in page.text_content(".tbl-panel").lower()
    return ctx, page


def test_a_result_already_seen_does_not_come_back_on_reload(server, chromium):
    ctx, page = _gin_hand(server, chromium)
    try:
        page.reload()
        page.wait_for_selector(".tbl-conn[data-state=open]")
        page.wait_for_selector(".tbl-main .hand-card")
        assert page.evaluate("window.ginTable.view.last_hand.hand_number") == 1
        assert page.is_hidden(".tbl-panel")
        page.reload()  # nor after the next frames
        page.wait_for_selector(".tbl-conn[data-state=open]")
        assert page.is_hidden(".tbl-panel")
        # the control: a player who had not seen it yet gets it on a reload while the next
        # hand has barely begun (when the computer has not yet moved to this player's turn)
        table_id = page.get_attribute("#table-app", "data-table-id")
        page.evaluate(f"localStorage.removeItem('gin.result.{table_id}')")
        page.reload()
        page.wait_for_selector(".tbl-conn[data-state=open]")
        if not page.evaluate("window.ginTable.myTurn"):
            assert page.is_visible(".tbl-panel[data-kind=hand]")
    finally:
        _close(ctx, page)


def test_the_result_closes_by_itself_when_the_next_turn_begins(server, chromium):
    ctx, page = _gin_hand(server, chromium)
    opened = time.monotonic()
    try:
        # the computer (non-dealer now) speaks first; then it is this player's turn
        page.wait_for_selector(".tbl.is-my-turn:not(.is-busy)", timeout=15000)
        assert page.evaluate("window.ginTable.view.hand_number") == 2
        # (untimed: up for 12 s at least, time to read it; a timed table's goes after 4 s)
        assert page.is_visible(".tbl-panel")
        page.wait_for_selector(".tbl-panel", state="hidden", timeout=25000)
        assert time.monotonic() - opened >= 11
        assert page.query_selector(".tbl-panel [data-act=continue]") is None
    finally:
        _close(ctx, page)


def test_a_result_being_read_is_not_replaced_by_the_next_hands(server, chromium):
    """The player goes gin; in the next hand the computer (first to act) takes the upcard and
    goes gin at once. Its result replaced the gin's before it could be read: now the gin's
    stays up, says the next one follows, and Continue shows it."""
    # (Medium: it takes the upcard whenever it melds)
    ctx, page = _gin_hand(server, chromium, level="2", later=[
        (["2C 4C 6C 8C TC QC 3D 5D 9D AH", GIN_NOW], "7H", ("2H", "3H", "6D")), NO_KNOCK])
    try:
        page.wait_for_function("() => window.ginTable.view.hand_number === 3", timeout=15000)
        panel = page.locator(".tbl-panel[data-kind=hand]")
        assert panel.locator(".panel-title").text_content().startswith("Hand 1: You")
        assert "Hand 2 has ended too: its result follows." in panel.text_content()
        panel.locator("[data-act=continue]").click()
        assert panel.locator(".panel-title").text_content().startswith("Hand 2: Computer")
        panel.locator("[data-act=continue]").click()
        page.wait_for_selector(".tbl-panel", state="hidden")
    finally:
        _close(ctx, page)


# ---------------------------------------------------------------- small defects (item 5)

# Every piece of a name between its break points (spaces, and after _ . -) on one line, and
# the whole name shown (not cut short with an ellipsis) in each score-sheet column header.
NAMES_WHOLE = """(sel) => [...document.querySelectorAll(sel)].flatMap((th) => {
  const bad = [];
  if (getComputedStyle(th).textOverflow === 'ellipsis' || th.scrollWidth > th.clientWidth + 1)
    bad.push(`${th.textContent}: cut`);
  for (const node of [...th.childNodes].filter((n) => n.nodeType === 3)) {
    let start = 0;
    for (const piece of node.textContent.split(/(?<=[ _.\\-])/)) {
      const r = document.createRange();
      r.setStart(node, start); r.setEnd(node, start + piece.trimEnd().length);
      start += piece.length;
      const tops = new Set([...r.getClientRects()].map((x) => Math.round(x.top)));
      if (tops.size > 1) bad.push(`${th.textContent}: "${piece}" broken`);
    }
  }
  return bad;
})"""


def test_score_sheets_show_whole_names_on_a_phone(server, chromium):
    # 76 deadwood: the gin (25 + 76) ends the game at once, with a final score
    ctx, page = _gin_hand(server, chromium, other="2C 5C 9C JC QC 3D 8D TD 9H JH")
    try:
        page.set_viewport_size({"width": 360, "height": 640})
        page.click(".tbl-tool:has-text('Score sheet')")
        page.wait_for_selector(".tbl-dialog[open] .sheet-name")
        names = page.eval_on_selector_all(".tbl-dialog[open] .sheet-name",
                                          "els => els.map(e => e.textContent)")
        # the hands, then (the game over by the rules) its final score with the bonuses
        assert names == ["You", "Computer (Easy)"] * 2
        assert page.locator(".tbl-dialog[open] .sheet-final").count() == 1
        assert page.locator(".tbl-dialog[open] .sheet-total th").first.text_content() \
            == "Hand points"
        assert page.evaluate(NAMES_WHOLE, ".tbl-dialog[open] .sheet-name") == []
        page.keyboard.press("Escape")
        # the final score and the stored game's pages
        page.wait_for_selector(".tbl-panel[data-kind=game-over] .sheet-name")
        assert page.evaluate(NAMES_WHOLE, ".tbl-panel .sheet-name") == []
        page.goto(server["base"] + "/games/")
        assert page.evaluate("document.documentElement.scrollWidth") <= 360
        link = page.locator(".games-table a.replay-link time").first
        box = link.bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= 360
        # a tap anywhere on the game's row opens its replay, not on the date alone
        # (the row's link lies over its cells: a click at the players' line is the link's)
        cell = page.locator(".games-table td[data-label=Players]").first.bounding_box()
        assert cell
        page.mouse.click(cell["x"] + cell["width"] / 2, cell["y"] + cell["height"] / 2)
        page.wait_for_selector(".score-sheet .sheet-name")
        names = page.eval_on_selector_all(".score-sheet .sheet-name",
                                          "els => els.map(e => e.textContent)")
        assert "alice_audit_long_name" in names and "Computer (Easy)" in names
        assert page.evaluate(NAMES_WHOLE, ".score-sheet .sheet-name") == []
        # the hands' results too wrap at spaces, never mid-word ("Comput/er (Easy)")
        assert page.locator(".score-sheet td.sheet-result").count() >= 1
        assert page.evaluate(NAMES_WHOLE, ".score-sheet td.sheet-result") == []
    finally:
        _close(ctx, page)


def test_tables_side_by_side_name_their_columns_alike(server, chromium):
    """Hollywood's final score: the tables of games 1 and 2 (shutouts, wider numbers) headed
    the computer's column "Easy" and game 3's "Computer (Easy)", each table abbreviated on
    its own. Three tables are built by the table's own sheet module, the first too narrow for
    the whole names: all three take the short labels."""
    ctx, page = _start(chromium, server["base"], "hollywood")
    try:
        heads = page.evaluate(r"""async () => {
          const url = performance.getEntriesByType('resource').map((e) => e.name)
            .find((n) => /\/js\/table\/sheet(\.[0-9a-f]+)?\.js$/.test(n));
          const sheet = await import(url);
          const col = (c) => ({ column: c, hand_points: [120, 0], scored_points: [240, 0],
            game_bonus: [100, 0], line_bonus: [60, 0], hands_won: [3, 0], totals: [400, 0],
            shutout: c < 2 });
          const labels = sheet.sheetLabels([{ kind: 'user' }, { kind: 'bot', short_name: 'Easy' }],
            ['You', 'Computer (Easy)'], 0);
          const group = document.createElement('div');
          group.className = 'sheet-cols sheet-cols-3';
          group.append(...sheet.finalTables({ columns: [0, 1, 2].map(col) }, labels));
          document.querySelector('main').append(group);
          group.firstElementChild.style.width = '60px';
          sheet.fitSheetNames(group);
          return [...group.querySelectorAll('th.sheet-name')].map((th) => th.textContent);
        }""")
        assert len(heads) == 6 and heads[1] != "Computer (Easy)", heads
        assert heads[1] == heads[3] == heads[5], heads
    finally:
        _close(ctx, page)


def _play_hands(server, table_id, hands, seats=3):
    """A Rummy game of ``seats`` players and seed 5 at the table, played (seeded random
    moves, going out when it can) until ``hands`` hands are scored and it is the player's
    turn."""
    out = subprocess.run([sys.executable, "manage.py", "shell", "-c", (
        "import random\n"
        "from games.models import Table\n"
        "from games import states, engine as E\n"
        f"t = Table.objects.get(pk={table_id})\n"
        "me = next(s.index for s in t.seats.all() if s.user_id)\n"
        # (a game of its own seed: the table's is random, and this one is known to go on)
        f"s, rng = E.new_game('rummy', 5, {seats}), random.Random(3)\n"
        f"while len(s.hand_results) < {hands} or s.to_act != me:\n"
        "    legal = [str(a) for a in E.legal_actions(s)]\n"
        "    out = [a for a in legal if a.startswith(('go_out', 'meld'))]\n"
        "    s, _ = E.apply(s, (out or rng.sample(legal, 1))[0], s.to_act)\n"
        "t.state = states.dump(s); t.version += 1\n"
        "t.save(update_fields=['state', 'version'])\n"
        "print('played', len(s.hand_results))\n"
    )], cwd=ROOT, env=server_env(server["tmp"]), capture_output=True, text=True, timeout=120)
    assert "played" in out.stdout, out.stdout + out.stderr


@pytest.mark.parametrize("seats", [3, 4])
def test_a_rummy_sheet_fits_a_phone_and_says_each_hands_points(server, chromium, seats):
    """With three players the sheet was 327 px wide in a 320 px box on a 390 px phone (the
    last name cut), and a winner's cell showed the running total alone: "10" right after the
    panel said "You score 2". With four, the winner's column stood 7 px under the scroll
    shadow of a 390 px phone (an outside audit)."""
    ctx, page = _start(chromium, server["base"], "rummy", seats=seats, level="2")
    try:
        table_id = int(page.get_attribute("#table-app", "data-table-id"))
        _play_hands(server, table_id, 6 if seats == 3 else 14, seats)
        page.reload()
        page.wait_for_selector(".tbl-conn[data-state=open]")
        for w, h in ((390, 844), (360, 640))[:5 - seats]:
            page.set_viewport_size({"width": w, "height": h})
            _settle(page)
            page.click(".tbl-tool:has-text('Score sheet')")
            page.wait_for_selector(".tbl-dialog[open] .sheet-name")
            wide = page.evaluate("""() => { const w = document.querySelector(
                '.tbl-dialog[open] .sheet-wrap'); return w.scrollWidth - w.clientWidth; }""")
            assert wide <= 0, f"{w}x{h}: the sheet is {wide} px wider than its box"
            page.keyboard.press("Escape")
        gains = page.eval_on_selector_all(".tbl-dialog .sheet-scored", """cells => cells.map(
            c => [c.firstChild.textContent, (c.querySelector('.sheet-gain') || {}).textContent])""")
        sheet = page.evaluate("window.ginTable.view.score_sheet.hands")
        scored = [r for r in sheet if r["winner"] is not None]
        assert len(gains) == len(scored) >= 2
        for (total, gain), row in zip(gains, scored, strict=True):
            assert int(total) == row["running"][0][row["winner"]]
            assert gain == (None if int(total) == row["points"] else f"+{row['points']}")
        assert any(g for _, g in gains), gains
    finally:
        _close(ctx, page)


def test_the_game_over_panel_comes_into_view_with_its_title(server, chromium):
    """After a resignation at a table of three on a phone, the page scrolled the game-over
    panel up to its top, then the seats' timers went and moved it up by their height: its
    title ("Computer (Medium) wins the game") stood above the screen."""
    # (as a phone scrolls: smoothly)
    ctx, page = _start(chromium, server["base"], "rummy", seats=3, level="2",
                       motion="no-preference")
    try:
        page.set_viewport_size({"width": 390, "height": 844})
        _settle(page)
        page.click(".tbl-tool-danger")
        page.click(".tbl-dialog .button-danger")
        page.wait_for_selector(".tbl-panel[data-kind=game-over] .panel-title")
        # the smooth scroll's end: the page has stood still for a few frames
        page.evaluate("""() => new Promise((done) => {
            let last = -1, still = 0;
            const look = () => {
                still = window.scrollY === last ? still + 1 : 0;
                last = window.scrollY;
                if (still >= 10) done(); else requestAnimationFrame(look);
            };
            setTimeout(look, 100);
        })""")
        top = page.evaluate(
            "document.querySelector('.tbl-panel .panel-title').getBoundingClientRect().top")
        assert 0 <= top < 844, top
    finally:
        _close(ctx, page)


def test_the_move_buttons_are_one_tab_or_one_key_away(server, chromium):
    ctx, page = _start(chromium, server["base"], "classic")
    try:
        page.wait_for_selector(".tbl.is-my-turn:not(.is-busy) .tbl-actions .button")
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.textContent").startswith(
            "Skip to your move")
        page.keyboard.press("Enter")
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.matches('.tbl-actions .button')")
        page.evaluate("document.activeElement.blur()")
        page.keyboard.press("h")
        assert page.evaluate("document.activeElement.matches('.hand-card')")
        page.keyboard.press("a")
        assert page.evaluate("document.activeElement.matches('.tbl-actions .button')")
        # with no move to make, A goes to the prompt that says why (it went to the empty row
        # of buttons, 0 px high, and the focus was lost to sight)
        page.evaluate("() => { document.activeElement.blur(); document.querySelectorAll("
                      "'.tbl-actions button').forEach((b) => { b.disabled = true; }); }")
        page.keyboard.press("a")
        assert page.evaluate(FOCUS_AT) == "prompt"
        # typing in the chat is not a shortcut
        page.evaluate("window.ginTable.toggleSide(true)")
        page.focus("#tbl-chat-input")
        page.keyboard.type("ha")
        assert page.input_value("#tbl-chat-input") == "ha"
        assert page.evaluate("document.activeElement.id") == "tbl-chat-input"
    finally:
        _close(ctx, page)


FOCUS_AT = """() => { const a = document.activeElement;
  if (!a || a === document.body) return 'body';
  return a.matches('.tbl-actions .button') ? 'button' : a.matches('.tbl-prompt') ? 'prompt'
    : a.matches('.hand-card') ? 'card' : a.className || a.tagName; }"""


def test_the_keyboard_keeps_its_place_from_move_to_move(server, chromium):
    """A move's button is drawn anew when its move leaves (disabled while in flight), and the
    focus fell back to <body> after nearly every move: a keyboard player found the table
    again from the top of the page. The focus now waits on the prompt and comes back to the
    first move button at the player's next turn."""
    ctx, page = _start(chromium, server["base"], "classic")
    try:
        seen, last = [], []
        moves = returned = 0
        while moves < 6:  # five moves of ours, each by the keyboard
            page.wait_for_selector(".tbl.is-my-turn:not(.is-busy)")
            version = page.evaluate("window.ginTable.socket.version")
            if page.evaluate("window.ginTable.view.phase") == "discard":
                # a discard: a card of the hand (not the one just taken), by Enter on the
                # card the first time, then by Space on it and Enter on its Discard button
                page.keyboard.press("h")
                while page.evaluate("document.activeElement.matches('.is-taken')"):
                    page.keyboard.press("ArrowRight")
                if moves > 2:
                    page.keyboard.press(" ")
                    page.wait_for_selector(".tbl-actions .button[data-act^='discard:']")
                    page.keyboard.press("a")
                    while not page.evaluate("document.activeElement.dataset.act || ''"
                                            ).startswith("discard:"):
                        page.keyboard.press("Tab")
            else:
                page.wait_for_selector(".tbl-actions .button")
                now = page.evaluate(FOCUS_AT)
                if last and "prompt" in last and "card" not in last:
                    # it waited there since our last move: back on the buttons by itself
                    assert now == "button", seen[-5:]
                    returned += 1
                elif now != "button":
                    page.keyboard.press("a")
            page.keyboard.press("Enter")
            moves += 1
            deadline = time.monotonic() + 20
            last = []
            while time.monotonic() < deadline:
                last.append(page.evaluate(FOCUS_AT))
                seen.append(last[-1])
                if page.evaluate(f"""() => window.ginTable.socket.version > {version}
                        && window.ginTable.myTurn && !window.ginTable.busy"""):
                    break
                time.sleep(0.05)
            if page.evaluate("document.querySelector('.tbl').dataset.status") != "playing":
                break
        assert "body" not in seen, seen
        assert set(seen) <= {"button", "prompt", "card"}, seen
        assert returned, (moves, seen)
    finally:
        _close(ctx, page)


def test_a_phones_moves_and_chat_close_for_your_turn(server, chromium):
    """On a phone the "Moves & chat" drawer, opened while the other seat played, stayed over
    the hand, the move buttons and the clock when the turn came back."""
    ctx, page = _start(chromium, server["base"], "classic")
    try:
        page.set_viewport_size({"width": 390, "height": 844})
        for _ in range(6):  # our moves up to a discard, the move that passes the turn
            page.wait_for_selector(".tbl.is-my-turn:not(.is-busy)", timeout=15000)
            if page.evaluate("window.ginTable.view.phase") == "discard":
                break
            _move(page, ["pass", "draw:stock"])
        page.evaluate("window.ginTable.toggleSide(true)")  # opened during the other's turn
        version = int(page.get_attribute(".tbl", "data-version"))
        _move(page, ["discard:"])
        deadline = time.monotonic() + 20
        while not page.evaluate(f"""() => window.ginTable.myTurn && !window.ginTable.busy
                && window.ginTable.socket.version > {version + 1}"""):
            assert time.monotonic() < deadline, "the turn did not come back"
            time.sleep(0.05)
        assert not page.evaluate(
            "document.querySelector('.tbl').classList.contains('is-side-open')")
    finally:
        _close(ctx, page)


def test_a_phone_spectators_known_card_stays_in_its_seat(server, chromium):
    """A spectator on a phone sees both seats side by side, their face-down fans hidden: a
    card known to all (taken from the discard pile) kept its overlap with the hidden backs
    and stood outside its seat's box."""
    ctx, page = _start(chromium, server["base"], "classic")
    watcher = chromium.new_context(viewport={"width": 390, "height": 844})
    try:
        # our first turn is the upcard's offer or a draw: either way the face-up card may be
        # taken, and then every seat knows it
        page.wait_for_selector(".tbl.is-my-turn:not(.is-busy)", timeout=15000)
        legal = page.evaluate("window.ginTable.legal")
        assert "take_upcard" in legal or "draw:discard" in legal, legal
        _move(page, ["take_upcard", "draw:discard"])
        w = watcher.new_page()
        w.goto(page.url)
        w.wait_for_selector(".tbl-opps .seat-fan .card:not(.card-back)")
        inside = w.evaluate("""() => [...document.querySelectorAll(
            '.tbl-opps .seat-fan .card:not(.card-back)')].map((c) => {
              const box = c.closest('.seat-box').getBoundingClientRect();
              const r = c.getBoundingClientRect();
              return r.left >= box.left - 0.5 && r.right <= box.right + 0.5; })""")
        assert inside and all(inside), inside
    finally:
        watcher.close()
        _close(ctx, page)


def test_a_large_text_size_lets_the_page_scroll_to_the_hand(server, chromium):
    """At twice the text size the table's fit-to-screen column cut the hand off (hidden, and
    out of reach of any scroll). It now gives way: the page scrolls to the hand."""
    ctx, page = _start(chromium, server["base"], "classic")
    try:
        assert not page.evaluate("document.querySelector('.tbl').classList.contains('is-unfit')")
        page.evaluate("document.documentElement.style.fontSize = '32px'")
        page.set_viewport_size({"width": 1280, "height": 801})  # (a resize checks again)
        page.wait_for_selector(".tbl.is-unfit")
        page.locator(".hand-card").last.scroll_into_view_if_needed()
        box = page.locator(".hand-card").last.bounding_box()
        assert box and 0 <= box["y"] and box["y"] + box["height"] <= 801
        # back to the usual size: the table fits the screen again
        page.evaluate("document.documentElement.style.fontSize = ''")
        page.set_viewport_size({"width": 1280, "height": 800})
        page.wait_for_selector(".tbl:not(.is-unfit)")
    finally:
        _close(ctx, page)


CONTRAST = """(sel) => { const el = document.querySelector(sel);
  const rgb = (c) => c.match(/[\\d.]+/g).slice(0, 4).map(Number);
  const lum = ([r, g, b]) => { const f = (v) => { v /= 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
  let bg = null;
  for (let e = el; e && !bg; e = e.parentElement) {
    const s = getComputedStyle(e);
    const c = rgb(s.backgroundColor);
    if ((c[3] === undefined || c[3] > 0.5) && s.backgroundColor !== 'rgba(0, 0, 0, 0)') bg = c;
    else if (s.backgroundImage.includes('gradient')) bg = rgb(s.backgroundImage);
  }
  const s = getComputedStyle(el);
  const o = Number(s.opacity);
  const fg = rgb(s.color).slice(0, 3).map((v, i) => v * o + bg[i] * (1 - o));
  const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
  return (a + 0.05) / (b + 0.05); }"""


def test_the_seats_ratings_are_legible_on_the_felt(server, chromium):
    """The "1500?" beside each name at the table was the page's grey on the felt: 1.35:1."""
    ctx, page = _start(chromium, server["base"], "classic")
    try:
        # (the computer has no rating; an opponent's is drawn by the same rule)
        page.wait_for_selector(".tbl-me-info .seat-rating")
        assert page.evaluate(CONTRAST, ".tbl-me-info .seat-rating") >= 4.5
    finally:
        _close(ctx, page)


# ------------------------------------------------- issue 19, item 11: names and game-over

# (cut: measured on the text itself; scrollWidth rounds, and "Medium 2" a pixel too wide for
# its box read "Mediu…" with scrollWidth 75 and clientWidth 74)
LABELS = """() => [...document.querySelectorAll('.tbl-opps .seat-name-text')].map((e) => ({
  text: e.textContent, cut: (() => { const r = document.createRange(); r.selectNodeContents(e);
    return r.getBoundingClientRect().width > e.getBoundingClientRect().width + 0.5; })(),
  label: e.closest('.seat-box').getAttribute('aria-label'),
}))"""


# a face-up card in every opponent's fan, as a card taken from the discard pile shows
KNOWN_CARD = """() => document.querySelectorAll('.tbl-opps .seat-fan').forEach((fan) => {
  const back = fan.querySelector('.card-back');
  if (!back) return;
  const card = back.cloneNode(true);
  card.classList.remove('card-back');
  card.classList.add('test-known');
  fan.append(card);
})"""


@pytest.mark.parametrize(("seats", "level", "name"), [(3, "1", "Easy"), (4, "2", "Medium")])
def test_computers_have_whole_distinct_labels_on_a_phone(server, chromium, seats, level, name):
    """(Medium's labels, the longest, read "Mediu…" twice at a table for four on a 360 px
    phone.)"""
    ctx, page = _start(chromium, server["base"], "rummy", seats, level)
    try:
        for size in ({"width": 390, "height": 844}, {"width": 360, "height": 640},
                     {"width": 844, "height": 390}):
            page.set_viewport_size(size)
            _settle(page)
            labels = page.evaluate(LABELS)
            assert len(labels) == seats - 1
            texts = [x["text"] for x in labels]
            assert len(set(texts)) == len(texts), (size, texts)
            shot = server["tmp"] / f"names{seats}-{size['width']}x{size['height']}.png"
            page.screenshot(path=str(shot))
            assert not [x for x in labels if x["cut"]], (size, shot, labels)
            # and beside a card it took from the pile, face up (a copy of a back made a face
            # up card here: whether a computer holds one depended on the deal, and "Easy 2"
            # read "Eas…" beside one in CI)
            page.evaluate(KNOWN_CARD)
            _settle(page)
            assert not [x for x in page.evaluate(LABELS) if x["cut"]], (size, "known card")
            page.evaluate("() => document.querySelectorAll('.test-known').forEach(e => e.remove())")
            assert all(name in t for t in texts), (size, texts)
            # one form at the table: all whole or all short ("Easy" beside "Computer 2 (Easy)")
            assert len({t.startswith("Computer") for t in texts}) == 1, (size, texts)
            # the whole name stays for screen readers
            assert all(x["label"].startswith("Computer") for x in labels), labels
        page.set_viewport_size({"width": 1280, "height": 800})
        _settle(page)
        assert sorted(x["text"] for x in page.evaluate(LABELS))[0] == f"Computer ({name})"
    finally:
        _close(ctx, page)


def _panel_buttons_on_screen(page, tmp, kind):
    """Each size where a button of the ``kind`` result panel lies off the screen."""
    failures = []
    for w, h in ((844, 390), (640, 360), (390, 844), (360, 640)):
        page.set_viewport_size({"width": w, "height": h})
        _settle(page)
        out = page.evaluate("""(kind) => [...document.querySelectorAll(
            `.tbl-panel[data-kind=${kind}] .button`)]
          .filter((b) => b.offsetParent !== null)
          .map((b) => { const r = b.getBoundingClientRect();
            return {text: b.textContent.trim(), top: r.top, bottom: r.bottom,
                    left: r.left, right: r.right}; })""", kind)
        off = [b for b in out if b["top"] < -1 or b["bottom"] > h + 1
               or b["left"] < -1 or b["right"] > w + 1]
        if not out or off:
            shot = tmp / f"{kind}-{w}x{h}.png"
            page.screenshot(path=str(shot))
            failures.append(f"{w}x{h} ({shot}): {off or 'no buttons'}")
    return failures


def test_the_game_over_buttons_are_on_screen_on_a_phone_on_its_side(server, chromium):
    ctx, page = _gin_hand(server, chromium, other="2C 5C 9C JC QC 3D 8D TD 9H JH")
    try:
        page.wait_for_selector(".tbl-panel[data-kind=game-over] .button")
        assert _panel_buttons_on_screen(page, server["tmp"], "game-over") == []
    finally:
        _close(ctx, page)


def test_the_table_after_the_game_shows_its_last_hand_as_scored(server, chromium):
    """Look at the table, after a game won by gin, showed the winner's hand as the one card
    left after the discard, no melds, and the loser's ten cards face down. The felt now shows
    the last hand as its result did, and no cards stand face down in the seats."""
    ctx, page = _gin_hand(server, chromium, other="2C 5C 9C JC QC 3D 8D TD 9H JH")
    try:
        page.wait_for_selector(".tbl-panel[data-kind=game-over] .button")
        page.click(".tbl-panel >> text=Look at the table")
        page.wait_for_selector(".tbl-panel", state="hidden")
        final = page.locator(".tbl-felt .tbl-final-hand")
        assert final.is_visible()
        text = final.inner_text()
        assert "Hand 1: You went gin" in text and "Computer (Easy)" in text, text
        # every card of both hands, face up: your ten in melds, their ten
        assert final.locator(".card").count() == 20
        assert page.locator(".tbl-opps .card-back").count() == 0
        assert "cards" not in page.inner_text(".tbl-opps")  # (nor "10 cards" left to count)
        assert page.locator(".tbl-felt .pile").count() == 0
        assert page.is_hidden(".tbl-me .hand") and page.is_hidden(".tbl-sort")
        page.set_viewport_size({"width": 390, "height": 844})
        _settle(page)
        wide = page.evaluate("document.documentElement.scrollWidth")
        assert wide <= 390, wide
    finally:
        _close(ctx, page)


def test_a_hands_result_keeps_its_buttons_on_a_small_phone(server, chromium):
    """On a 360 x 640 phone a gin hand's result (both hands shown) was taller than the felt:
    Continue lay under the screen's edge until the panel was scrolled. The buttons now stay
    at the panel's foot, as the game-over buttons did."""
    ctx, page = _gin_hand(server, chromium)
    try:
        assert _panel_buttons_on_screen(page, server["tmp"], "hand") == []
        # what the panel holds below its buttons is said above them ("More below"), until it
        # is scrolled to its end (an outside audit: half of the first hand showed, the rest
        # hidden with nothing to say so)
        page.set_viewport_size({"width": 360, "height": 640})
        _settle(page)
        panel = ".tbl-panel[data-kind=hand]"
        more = page.evaluate(f"""() => {{ const p = document.querySelector('{panel}');
            return p.scrollHeight - p.clientHeight; }}""")
        assert more > 1, "the result fits a 360 x 640 phone: nothing to scroll"
        page.wait_for_selector(f"{panel}.scroll-down", timeout=3000)
        cue = page.evaluate(f"""() => getComputedStyle(document.querySelector(
            '{panel} > .tbl-actions'), '::before').content""")
        assert "More below" in cue
        page.evaluate(f"() => {{ const p = document.querySelector('{panel}'); "
                      "p.scrollTop = p.scrollHeight; }")
        page.wait_for_selector(f"{panel}:not(.scroll-down)", timeout=3000)
    finally:
        _close(ctx, page)


# Every line of text on the felt (outside the panel) that the result panel's edge cuts.
CUT_BY_PANEL = """() => {
  const p = document.querySelector('.tbl-panel[data-kind=hand]').getBoundingClientRect();
  const cut = (r) => r.height > 0 && (r.top < p.top && r.bottom > p.top + 1
    || r.top < p.bottom - 1 && r.bottom > p.bottom);
  return [...document.querySelectorAll('.tbl-main *')]
    .filter((e) => !e.closest('.tbl-panel') && e.checkVisibility()
      && [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim()))
    .filter((e) => cut(e.getBoundingClientRect()))
    .map((e) => e.textContent.trim().slice(0, 40));
}"""


def test_a_hands_result_cuts_no_line_in_half(server, chromium):
    """The hand's result floated over the felt and ended where its text did: on a phone its
    edge went through the prompt's "Waiting for Computer (Medium) to play…" or your seat's
    Score and Dealer row. It now takes the place of the opponents and the felt, over the
    prompt (whose buttons a player whose turn it is can press) and the hand, which stay where
    they were."""
    ctx, page = _gin_hand(server, chromium)
    try:
        failures = []
        for w, h in ((390, 844), (360, 640), (844, 390), (1280, 800)):
            page.set_viewport_size({"width": w, "height": h})
            _settle(page)
            cut = page.evaluate(CUT_BY_PANEL)
            # and nothing of the result shows in a strip under its buttons
            gap = page.evaluate("""() => document.querySelector('.tbl-panel')
                .getBoundingClientRect().bottom - document.querySelector(
                '.tbl-panel > .tbl-actions').getBoundingClientRect().bottom""")
            if gap > 1:
                cut.append(f"{gap:.0f} px of the result under its buttons")
            if cut:
                shot = server["tmp"] / f"panel-cut-{w}x{h}.png"
                page.screenshot(path=str(shot))
                failures.append(f"{w}x{h} ({shot}): {cut}")
        assert failures == []
        page.set_viewport_size({"width": 390, "height": 844})
        _settle(page)
        top = page.evaluate("document.querySelector('.hand').getBoundingClientRect().top")
        page.click(".tbl-panel [data-act=continue]")
        page.wait_for_selector(".tbl-panel", state="hidden")
        _settle(page)
        assert page.evaluate("document.querySelector('.hand').getBoundingClientRect().top") == top
    finally:
        _close(ctx, page)


# Every control on screen that a toast lies over (the toast's own close button aside).
COVERED = """() => {
  const t = document.querySelector('.toast[data-key=hint]').getBoundingClientRect();
  const over = (r) => r.width > 0 && r.height > 0 && r.left < t.right && r.right > t.left
    && r.top < t.bottom && r.bottom > t.top;
  return [...document.querySelectorAll('a, button, select, input, [role=button], .hand-card')]
    .filter((e) => !e.closest('.toast') && e.checkVisibility() && over(e.getBoundingClientRect()))
    .map((e) => e.className || e.tagName);
}"""


def test_a_hint_toast_covers_no_control(server, chromium):
    """The hint's toast stood over the site's Menu button (and the table bar's buttons) on a
    phone: it now stands under the table's bar, over the opponents' names."""
    ctx, page = _start(chromium, server["base"], "classic")
    try:
        page.wait_for_selector(".tbl.is-my-turn:not(.is-busy) .tbl-hint")
        for size in ({"width": 390, "height": 844}, {"width": 360, "height": 640},
                     {"width": 844, "height": 390}, {"width": 1366, "height": 768}):
            page.set_viewport_size(size)
            _settle(page)
            page.evaluate("document.querySelector('.toast[data-key=hint]')?.remove()")
            page.click(".tbl-hint")
            page.wait_for_selector(".toast[data-key=hint]")
            # measured where it comes to rest: its 0.2 s pop starts 4 px lower (it failed
            # once, under load, with nothing to show why)
            page.wait_for_function("document.querySelector('.toast[data-key=hint]')"
                                   ".getAnimations().length === 0")
            shot = server["tmp"] / f"hint-{size['width']}x{size['height']}.png"
            page.screenshot(path=str(shot))
            assert page.evaluate(COVERED) == [], (size, shot)
    finally:
        _close(ctx, page)


def test_a_result_panel_takes_the_keyboard(server, chromium):
    """The panel over the table gets the focus when it opens, and A goes to its buttons: A
    went to the next hand's move buttons under it, and Enter played one unseen."""
    # 76 deadwood: the gin ends the game, so the panel stays (a hand's result closes once the
    # player's next turn begins)
    ctx, page = _gin_hand(server, chromium, other="2C 5C 9C JC QC 3D 8D TD 9H JH")
    try:
        page.wait_for_selector(".tbl-panel[data-kind=game-over]")
        in_panel = ("() => !!document.activeElement.closest('.tbl-panel')"
                    " && document.activeElement.matches('button, a.button')")
        assert page.evaluate(in_panel)
        page.evaluate("document.activeElement.blur()")
        page.keyboard.press("a")
        assert page.evaluate(in_panel)
    finally:
        _close(ctx, page)


def test_an_offline_players_name_stays_readable_on_a_phone(server, chromium):
    """A table for three on a phone, two people gone: their boxes read "a." and "c." beside
    "1500? offline". The word now stands under the name (the dot stays beside it)."""
    ctx, page = _start(chromium, server["base"], "rummy", 3)
    try:
        page.set_viewport_size({"width": 390, "height": 844})
        _settle(page)
        # the two computers' seats shown as people who went offline (as a presence frame)
        page.evaluate("""() => {
          const t = window.ginTable;
          const seats = t.frame.seats.map((s, i) => i === t.mySeat ? s : {
            ...s, kind: "user", bot_level: null, short_name: null, connected: false,
            name: i === 1 ? "alice" : "carol", username: i === 1 ? "alice" : "carol" });
          t.ratings.fromFrame({ ratings: seats.filter((s) => s.index !== t.mySeat)
            .map((s) => ({ seat: s.index, label: "1500?" })) });
          t.onPresence({ seats });
        }""")
        _settle(page)
        boxes = page.evaluate("""() => [...document.querySelectorAll('.tbl-opps .seat-box')]
          .map((b) => { const n = b.querySelector('.seat-name-text');
            return { text: n.textContent, cut: n.scrollWidth > n.clientWidth + 1,
                     word: b.querySelector('.seat-meta .seat-presence-word')?.textContent,
                     dot: b.querySelector('.seat-name .seat-presence')?.title }; })""")
        shot = server["tmp"] / "offline-names.png"
        page.screenshot(path=str(shot))
        assert sorted(b["text"] for b in boxes) == ["alice", "carol"], boxes
        assert not [b for b in boxes if b["cut"]], (shot, boxes)
        assert all(b["word"] == "offline" and b["dot"] == "offline" for b in boxes), boxes
    finally:
        _close(ctx, page)


def test_a_playban_banner_stays_off_a_table_in_play(server, chromium):
    """The five-line "Rated play paused" banner stood over a table in play on a phone and
    squeezed the felt until the piles' labels were cut (the banner is for sitting down)."""
    ctx, page = _start(chromium, server["base"], "classic")
    try:
        page.wait_for_selector(".tbl[data-status=playing]")
        shown = ("(where) => { const b = document.createElement('div');"
                 " b.className = 'playban-banner message message-warning'; b.textContent = 'x';"
                 " document.querySelector(where).before(b);"
                 " return getComputedStyle(b).display !== 'none'; }")
        assert not page.evaluate(shown, "main")
        _resign(page)
        page.goto(server["base"] + "/play/")
        assert page.evaluate(shown, "main")  # elsewhere it stays
    finally:
        _close(ctx, page)


def test_a_phone_says_offline_in_a_word_beside_retry_now(server, chromium):
    """On a phone the bar showed only "● Retry now" when the connection was lost (the state's
    text was hidden with the live state's). It now says "Offline"; a desktop keeps the long
    text (with no network, no countdown: the socket waits for the browser's "online")."""
    ctx, page = _start(chromium, server["base"], "classic")
    try:
        page.set_viewport_size({"width": 390, "height": 844})
        _settle(page)
        # the words that take room on screen (a live bar sets its text in a font of size 0)
        visible = ("() => [...document.querySelectorAll('.tbl-conn > :not(.dot)')]"
                   ".filter((e) => e.getBoundingClientRect().width > 1)"
                   ".map((e) => e.textContent).join(' ')")
        assert page.evaluate(visible) == ""  # live: the dot alone
        ctx.set_offline(True)
        page.wait_for_selector(".tbl-conn[data-state=offline]", timeout=20000)
        shot = server["tmp"] / "offline-bar.png"
        page.screenshot(path=str(shot))
        assert page.evaluate(visible) == "Offline Retry now", shot
        # a move tried now flashes that bar: no toast over the opponent's name saying it again
        page.evaluate("() => window.ginTable.send(window.ginTable.legal[0])")
        assert page.evaluate("document.querySelector('.tbl-conn').classList.contains('is-nudged')")
        page.screenshot(path=str(server["tmp"] / "offline-nudge.png"))
        assert page.locator(".tbl-toasts .toast").count() == 0
        page.set_viewport_size({"width": 1280, "height": 800})
        # the browser knows it has no network: no countdown to an attempt that would fail
        assert page.evaluate(visible).startswith("No network: reconnecting when it is back")
        assert page.evaluate(visible).endswith("Retry now")
        ctx.set_offline(False)  # (the browser's "online" event reconnects at once)
        page.wait_for_selector(".tbl-conn[data-state=open]", timeout=20000)
    finally:
        _close(ctx, page)


def test_the_update_offer_waits_for_the_end_of_the_game(server, chromium):
    """"A new version of the site is available" (the service worker's offer, at the foot of
    the screen) lay over a phone's hand during a game, where a tap on a card hit it. It now
    waits for the game's end."""
    ctx, page = _start(chromium, server["base"], "classic")
    try:
        page.set_viewport_size({"width": 390, "height": 844})
        shown = ("() => { let b = document.getElementById('sw-update'); if (!b) {"
                 " b = document.createElement('div'); b.id = 'sw-update';"
                 " b.className = 'sw-update'; b.textContent = 'A new version';"
                 " document.body.append(b); }"
                 " return getComputedStyle(b).display !== 'none'; }")
        page.wait_for_selector(".tbl[data-status=playing]")
        assert not page.evaluate(shown)
        _resign(page)
        assert page.evaluate(shown)
    finally:
        _close(ctx, page)
