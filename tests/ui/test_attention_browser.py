"""Issue 19, item 16, in a phone-sized browser (390 x 844) on a live server: a player whose
tab is in the background learns that it is their turn (tab title, a buzz, a short generated
sound, a notification) and that a message arrived; a player looking at the page gets only
the title; nothing asks for notification permission until a click; turned-off alerts stay
off. The page's hidden state is emulated (``document.visibilityState``) and the browser's
Notification, vibrate and WebAudio are recorded by stubs installed before the page loads."""
from __future__ import annotations

import json

import pytest

from tests.support.browser import log_in, require_chromium
from tests.support.servers import site_with_users

pytestmark = [pytest.mark.browser, pytest.mark.backend_independent]

PASSWORD = "a-Strong-pass-123"
PHONE = {"width": 390, "height": 844}

require_chromium()

STUBS = """
(() => {
  const calls = window.__alerts = { vibrate: [], notes: 0, notifications: [], asked: 0 };
  let visibility = 'visible';
  window.__setHidden = (hidden) => {
    visibility = hidden ? 'hidden' : 'visible';
    document.dispatchEvent(new Event('visibilitychange'));
  };
  Object.defineProperty(Document.prototype, 'visibilityState', { get: () => visibility,
                                                                 configurable: true });
  Object.defineProperty(Document.prototype, 'hidden', { get: () => visibility === 'hidden',
                                                        configurable: true });
  navigator.vibrate = (pattern) => { calls.vibrate.push(pattern); return true; };
  class FakeNotification {
    constructor(title, options) { calls.notifications.push({ title, ...options }); }
    close() {}
  }
  // the permission, like a browser's, lasts across pages
  Object.defineProperty(FakeNotification, 'permission', {
    get: () => sessionStorage.getItem('fake-permission') || 'default', configurable: true });
  FakeNotification.requestPermission = async () => {
    calls.asked += 1; sessionStorage.setItem('fake-permission', 'granted'); return 'granted';
  };
  window.Notification = FakeNotification;
  const Real = window.AudioContext;
  window.AudioContext = class extends Real {
    createOscillator() {
      const osc = super.createOscillator();
      const start = osc.start.bind(osc);
      osc.start = (...a) => { calls.notes += 1; return start(...a); };
      return osc;
    }
  };
})();
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("attention")
    with site_with_users(tmp, ('alice', 'bob', 'quiet'), PASSWORD) as base:
        yield {"base": base, "tmp": tmp}


def _login(browser, base, username):
    ctx = browser.new_context(viewport=PHONE, reduced_motion="reduce", is_mobile=True,
                              has_touch=True)
    ctx.add_init_script(STUBS)
    page = ctx.new_page()
    log_in(page, base, username, PASSWORD)
    return ctx, page


def _allow_notifications(page, base):
    page.goto(base + "/settings/alerts/")
    assert page.evaluate("window.__alerts.asked") == 0  # never asked on its own
    page.click("[data-alerts-allow]")
    page.wait_for_function("() => window.__alerts.asked === 1")
    page.wait_for_selector("[data-alerts-allow]", state="hidden")
    assert "allowed" in page.text_content("[data-alerts-permission]")


def _play_the_computer(page, base):
    page.goto(base + "/play/")
    page.select_option("select[name=mode]", "classic")
    page.select_option("select[name=level]", "1")
    page.click(".computer-form button[type=submit]")
    page.wait_for_selector(".tbl-conn[data-state=open]")


def _my_move(page):
    page.wait_for_selector(".tbl.is-my-turn:not(.is-busy)", timeout=15000)
    legal = page.evaluate("window.ginTable.legal")
    pick = next((a for p in ("pass", "draw:stock", "discard:") for a in legal
                 if a.startswith(p)), legal[0])
    version = int(page.get_attribute(".tbl", "data-version"))
    page.evaluate(f"window.ginTable.send({json.dumps(pick)})")
    page.wait_for_function("v => +document.querySelector('.tbl').dataset.version > v",
                           arg=version)


def _until_the_turn_comes_back(page):
    """Moves until the computer has moved and a turn of this player's has begun again."""
    for _ in range(8):
        _my_move(page)
        try:
            page.wait_for_function("() => window.__alerts.notifications.length >= 1",
                                   timeout=4000)
            return
        except Exception:
            continue  # the same turn goes on (drew, now discards)
    raise AssertionError("no turn began while the tab was hidden")


def test_your_turn_in_a_background_tab_on_a_phone(server, chromium):
    ctx, page = _login(chromium, server["base"], "alice")
    try:
        _allow_notifications(page, server["base"])
        _play_the_computer(page, server["base"])
        page.wait_for_selector(".tbl.is-my-turn", timeout=15000)
        # looking at the page: the title says it, nothing rings or pops up
        assert page.title() == "Your turn - Gin Rummy"
        calls = page.evaluate("window.__alerts")
        assert (calls["notes"], calls["notifications"], calls["vibrate"]) == (0, [], [])
        # the tab goes to the background; the computer moves; the turn comes back
        page.evaluate("window.__setHidden(true)")
        _until_the_turn_comes_back(page)
        calls = page.evaluate("window.__alerts")
        note = calls["notifications"][-1]
        assert note["title"] == "Your turn" and note["tag"].startswith("turn-")
        assert note["body"]  # what to do: "Draw from the stock or ..."
        assert calls["notes"] >= 2  # a generated two-note sound (WebAudio, no file)
        assert calls["vibrate"]  # and a buzz
        assert page.title() == "Your turn - Gin Rummy"
    finally:
        ctx.close()


def test_a_message_reaches_a_background_tab_and_turned_off_alerts_stay_off(server, chromium):
    alice, page = _login(chromium, server["base"], "alice")
    quiet, quiet_page = _login(chromium, server["base"], "quiet")
    bob, bob_page = _login(chromium, server["base"], "bob")
    try:
        # quiet turns every alert off
        quiet_page.goto(server["base"] + "/settings/alerts/")
        for name in ("alert_sound", "alert_vibrate", "alert_notifications", "alert_title"):
            quiet_page.uncheck(f"input[name={name}]")
        quiet_page.click(".form button[type=submit]")
        quiet_page.wait_for_load_state()
        for p in (page, quiet_page):
            p.goto(server["base"] + "/play/")
            p.evaluate("sessionStorage.setItem('fake-permission', 'granted')")
            p.wait_for_function("() => window.__alerts !== undefined")
            p.wait_for_timeout(500)  # the notification socket connects
            p.evaluate("window.__setHidden(true)")
        before = page.title()
        for who in ("alice", "quiet"):
            bob_page.goto(f"{server['base']}/messages/with/{who}/")
            bob_page.fill("textarea[name=body]", f"Hello {who}, a game?")
            bob_page.click("#composer button[type=submit]")
            bob_page.wait_for_load_state()
        page.wait_for_function("() => window.__alerts.notifications.length >= 1", timeout=15000)
        note = page.evaluate("window.__alerts.notifications[0]")
        assert note["title"] == "New message from bob" and "a game?" in note["body"]
        assert page.title() == "New message from bob - Gin Rummy"
        assert page.evaluate("window.__alerts.notes") >= 2
        # shown again: the page's own title comes back
        page.evaluate("window.__setHidden(false)")
        assert page.title() == before
        quiet_page.wait_for_timeout(1500)
        calls = quiet_page.evaluate("window.__alerts")
        assert (calls["notes"], calls["notifications"], calls["vibrate"]) == (0, [], [])
        assert "New message" not in quiet_page.title()
    finally:
        for c in (alice, quiet, bob):
            c.close()
