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
from tests.support.servers import manage, server_env, site_with_users

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


# The WebSockets a page makes, as it makes them (``window.__sockets``).
COUNT_SOCKETS = """(() => { const made = window.__sockets = []; const Real = window.WebSocket;
  window.WebSocket = class extends Real {
    constructor(...args) { super(...args); made.push(this); } }; })();"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("attention")
    with site_with_users(tmp, ('alice', 'bob', 'quiet', 'dora'), PASSWORD) as base:
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


def test_your_own_new_conversation_is_read_in_your_other_tab(server, chromium):
    """bob writes to dora for the first time in one tab; his inbox in another tab adds the
    conversation live, and as read (it came bold, with an empty unread badge)."""
    bob, inbox = _login(chromium, server["base"], "bob")
    try:
        inbox.goto(server["base"] + "/messages/")
        inbox.wait_for_timeout(500)  # the notification socket connects
        writer = bob.new_page()
        writer.goto(f"{server['base']}/messages/with/dora/")
        writer.fill("textarea[name=body]", "Hello dora, a game?")
        writer.click("#composer button[type=submit]")
        row = inbox.locator(".conversation-item", has_text="@dora")
        row.wait_for(timeout=15000)
        assert "You: Hello dora" in row.text_content()
        assert "is-unread" not in (row.get_attribute("class") or "")
        assert row.locator("[data-unread]").is_hidden()
    finally:
        bob.close()


def test_a_phone_conversation_keeps_its_box_and_the_newest_messages_in_view(server, chromium):
    """On a phone a long conversation pushed the message box's Send under the screen's edge;
    a keyboard opening (the screen shrinking) left the newest messages under it; the inbox's
    unread count stood on a line of its own; the help spoke of Shift+Enter, which a phone's
    keyboard has not (Return there starts a new line, Send sends)."""
    out = manage(server_env(server["tmp"]), "shell", "-c", (
        "from django.test.utils import override_settings\n"
        "from django.contrib.auth import get_user_model\n"
        "from social.services import messages as m\n"
        "U = get_user_model()\n"
        "a, q = U.objects.get(username='alice'), U.objects.get(username='quiet')\n"
        "with override_settings(SOCIAL_MESSAGE_RATE=100, SOCIAL_MESSAGE_RATE_NEW_ACCOUNT=100):\n"
        "    for i in range(30):\n"
        "        m.message_send(sender=q if i % 2 else a, recipient=a if i % 2 else q,\n"
        "                       body=f'message number {i} ' * (1 + i % 4))\n"
        "print('sent')\n"), capture_output=True, text=True)
    assert "sent" in out.stdout, out.stdout + out.stderr
    ctx, page = _login(chromium, server["base"], "alice")
    try:
        page.goto(server["base"] + "/messages/")
        row = page.locator(".conversation-item", has_text="@quiet")
        name, badge = (row.locator(s).bounding_box()
                       for s in (".conversation-name", "[data-unread]"))
        assert abs(name["y"] - badge["y"]) < name["height"], (name, badge)
        page.goto(server["base"] + "/messages/with/quiet/")
        send = page.locator("#composer button[type=submit]").bounding_box()
        assert send["y"] + send["height"] <= PHONE["height"], send
        assert page.locator("[data-enter-help]").is_hidden()
        page.fill("textarea[name=body]", "one")
        page.locator("textarea[name=body]").press("Enter")  # a new line, not a send
        assert page.input_value("textarea[name=body]") == "one\n"
        page.set_viewport_size({"width": PHONE["width"], "height": 500})  # the keyboard
        page.wait_for_timeout(300)
        left = page.evaluate("() => { const l = document.querySelector('.message-log');"
                             " return l.scrollHeight - l.scrollTop - l.clientHeight; }")
        assert left < 5, left
    finally:
        ctx.close()


def test_the_alert_socket_waits_for_the_network_while_offline(server, chromium):
    """With the browser offline the page's alert socket makes no attempt (each one failed with
    ERR_INTERNET_DISCONNECTED in the console, three in an offline game); back online it
    connects at once. The sockets are counted by the page itself: Playwright's websocket
    events of the page before (the one the log-in led to) could still arrive once the test
    listened, and were counted as this page's (a CI run saw two where there was one)."""
    ctx, page = _login(chromium, server["base"], "dora")
    ctx.add_init_script(COUNT_SOCKETS)
    errors = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    made = "() => window.__sockets.map((s) => s.url)"
    try:
        page.goto(server["base"] + "/contacts/")
        page.wait_for_function("() => window.__sockets.length > 0")
        assert page.evaluate(made)[0].endswith("/ws/notify/")
        ctx.set_offline(True)
        page.wait_for_timeout(6000)  # the first retry came 1.5 to 2.5 s after the drop
        assert len(page.evaluate(made)) == 1, page.evaluate(made)
        assert not [e for e in errors if "WebSocket" in e], errors
        ctx.set_offline(False)
        page.wait_for_function("() => window.__sockets.length === 2", timeout=5000)
        page.wait_for_timeout(500)
        assert len(page.evaluate(made)) == 2
    finally:
        ctx.close()


def test_a_matchs_go_now_goes_when_its_tournament_ends(server, chromium):
    """A "your match is ready: go now" toast stays until dismissed, but not past its
    tournament: the notice that the tournament finished (or was cancelled) takes it away (it
    had stayed under "... has finished", asking for a match that no longer was: an audit).
    The notices are the server's frames, given to the page by a stand-in for its socket."""
    ctx, page = _login(chromium, server["base"], "dora")
    sockets = []

    def stand_in(ws):  # the real socket, and frames of ours to the page
        ws.connect_to_server()
        sockets.append(ws)

    try:
        page.route_web_socket("**/ws/notify/", stand_in)
        page.goto(server["base"] + "/messages/")
        for _ in range(100):  # (the page opens its socket once loaded)
            if sockets:
                break
            page.wait_for_timeout(100)
        assert sockets, "the page opened no notification socket"
        for name, end in (("Ghost Cup", "finished"), ("Rain Cup", "cancelled")):
            t = {"id": 7, "name": name, "url": f"/tournaments/{len(name)}/"}
            sockets[-1].send(json.dumps({
                "type": "tournament", "event": "match", "tournament": t,
                "table": {"id": 9, "url": "/tables/9/"}, "opponent": {"name": "hal"}}))
            ready = page.locator(".notify-toast", has_text=f"Your match in {name} is ready")
            ready.wait_for()
            assert "Go now" in ready.text_content()
            sockets[-1].send(json.dumps({"type": "tournament", "event": end, "tournament": t,
                                         "reason": ""}))
            title = f"{name} has finished" if end == "finished" else f"{name} is cancelled"
            page.locator(".notify-toast", has_text=title).wait_for()
            assert ready.count() == 0
    finally:
        ctx.close()
