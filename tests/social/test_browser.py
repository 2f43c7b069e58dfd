"""Two people chatting in real browsers against a real Daphne: live delivery, the unread
badge, read when seen, links and escaping, presence on the contacts page, no CSP errors."""
from __future__ import annotations

import pytest

from tests.support.browser import CHROMIUM, CHROMIUM_ARGS, require_chromium
from tests.support.servers import (
    daphne,
    migrated_and_set_up,
    printed_json,
    server_env,
    signed_in_users_script,
)

pytestmark = [pytest.mark.browser, pytest.mark.backend_independent]

require_chromium()

WAIT = 15000

SETUP = signed_in_users_script(("anna", "ben", "cleo")) + """
from social import services
services.contact_request_send(sender=users["anna"], recipient=users["ben"])
services.contact_request_accept(user=users["ben"],
                                request_id=users["ben"].contact_requests_received.get().pk)
# Cleo (not a contact) wrote Ben more than a page of messages, all read.
from social.models import ConversationMember, Message
services.message_send(sender=users["cleo"], recipient=users["ben"], body="cleo 0")
member = ConversationMember.objects.get(user=users["ben"])
Message.objects.bulk_create([Message(conversation=member.conversation, sender=users["cleo"],
                                     body=f"cleo {i}") for i in range(1, 53)])
member.conversation.last_message = Message.objects.latest("id")
member.conversation.save()
services.conversation_mark_read(user=users["ben"], conversation_id=member.conversation_id)
# Ben has a Classic Gin rating: a new contact's live row shows it as the served rows do
from leaderboards.models import Rating
Rating.objects.create(user=users["ben"], mode="classic", rating=1612, provisional=False,
                      games=30)
print("SESSIONS=" + json.dumps(out))
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("social-browser")
    env = server_env(tmp)
    sessions = printed_json(migrated_and_set_up(env, SETUP), "SESSIONS")
    with daphne(tmp, env) as base:
        yield base, sessions


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


def _page(browser, base, session, errors, **options):
    options.setdefault("viewport", {"width": 360, "height": 740})
    context = browser.new_context(**options)
    context.add_cookies([{"name": "sessionid", "value": session, "url": base}])
    page = context.new_page()
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    page.on("pageerror", lambda e: errors.append(str(e)))
    return context, page


def test_two_people_chat_live(site, browser):
    base, sessions = site
    errors: list[str] = []
    anna_ctx, anna = _page(browser, base, sessions["anna"], errors)
    # Ben's device is in Tokyo, his account in UTC: times follow the account, live or not
    ben_ctx, ben = _page(browser, base, sessions["ben"], errors, timezone_id="Asia/Tokyo")
    posts = {"anna": [], "ben": []}
    for name, page in (("anna", anna), ("ben", ben)):
        page.on("request", lambda r, name=name: r.method == "POST"
                and "/messages/with/" in r.url and posts[name].append(r.url))
    try:
        # Ben watches his contacts: Anna comes online when she opens a page.
        ben.goto(f"{base}/contacts/")
        anna_row = ben.locator("#contact-list li", has_text="Anna")
        anna.goto(f"{base}/messages/with/ben/")
        anna_row.locator(".social-presence-online").wait_for(timeout=WAIT)

        ben.goto(f"{base}/messages/")
        ben.wait_for_function("document.querySelector('#unread-badge') !== null")
        anna.fill("#message-body", "hello <b>Ben</b> see https://example.com/x.")
        anna.press("#message-body", "Enter")
        anna.locator("#messages-list li.is-mine").wait_for(timeout=WAIT)
        # Ben's inbox and badge update live.
        ben.wait_for_function(
            "document.querySelector('#unread-badge').dataset.count === '1'", timeout=WAIT
        )
        # On a 360 px phone the menu is folded: its button carries the count.
        toggle = ben.locator("[data-nav-toggle]")
        if toggle.count():
            assert toggle.get_attribute("data-unread") == "1"
        item = ben.locator("#conversation-list li").first
        item.locator("[data-preview]", has_text="hello <b>Ben</b>").wait_for(timeout=WAIT)
        # Opening the conversation reads it: the badge goes away.
        ben.goto(f"{base}/messages/with/anna/")
        body = ben.locator("#messages-list li .chat-body").first
        assert body.inner_text() == "hello <b>Ben</b> see https://example.com/x."
        link = body.locator("a")
        assert link.get_attribute("href") == "https://example.com/x"
        assert link.get_attribute("rel") == "nofollow noopener noreferrer"
        assert body.locator("b").count() == 0
        ben.wait_for_function(
            "document.querySelector('#unread-badge').dataset.count === '0'", timeout=WAIT
        )
        # While Ben looks at the conversation, Anna's next message appears and is read.
        anna.fill("#message-body", "<img src=x onerror=alert(1)> second https://a.example")
        anna.press("#message-body", "Enter")
        second = ben.locator("#messages-list li", has_text="second")
        second.wait_for(timeout=WAIT)
        assert second.locator("img").count() == 0
        assert second.locator("a").get_attribute("href") == "https://a.example/"
        ben.wait_for_timeout(500)
        assert ben.locator("#unread-badge").get_attribute("data-count") == "0"
        # Both went as "send" frames on Anna's open socket, not as form posts.
        assert posts["anna"] == []
        live_time = second.locator("time").inner_text()
        ben.reload()
        assert ben.locator("#unread-badge").get_attribute("data-count") == "0"
        served = ben.locator("#messages-list li", has_text="second").locator("time")
        assert served.inner_text() == live_time  # "Dec 4, 19:23": as the server writes it
        # Ben answers with no socket open (closed as on leaving the page; it reconnects only
        # seconds later): the form is posted instead, and Anna sees it live all the same.
        ben.evaluate("window.dispatchEvent(new Event('pagehide'))")
        ben.fill("#message-body", "hi Anna")
        ben.click("#composer button[type=submit]")
        anna.locator("#messages-list li", has_text="hi Anna").wait_for(timeout=WAIT)
        ben.locator("#messages-list li.is-mine", has_text="hi Anna").wait_for(timeout=WAIT)
        assert len(posts["ben"]) == 1
        assert not [e for e in errors if "Content Security Policy" in e or "Refused" in e]
        assert not errors, errors
    finally:
        anna_ctx.close()
        ben_ctx.close()


def test_contact_requests_and_older_messages(site, browser):
    """The contacts page follows requests live (a received request's row with its Accept and
    Decline forms, a new contact's row with presence and a Message link); a conversation loads
    its older messages in place."""
    base, sessions = site
    errors: list[str] = []
    ben_ctx, ben = _page(browser, base, sessions["ben"], errors)
    cleo_ctx, cleo = _page(browser, base, sessions["cleo"], errors)
    try:
        ben.goto(f"{base}/contacts/")
        cleo.goto(f"{base}/contacts/?q=ben")
        cleo.locator("form", has_text="Add contact").locator("button").click()
        row = ben.locator("#incoming-list li[data-request-id]", has_text="Cleo")
        row.wait_for(timeout=WAIT)
        request_id = row.get_attribute("data-request-id")
        assert row.locator("a").get_attribute("href") == "/u/cleo/"
        assert row.locator(".muted").inner_text() == "@cleo"
        assert row.locator("[data-action=accept]").get_attribute("action") == (
            f"/contacts/requests/{request_id}/accept/")
        assert row.locator("[data-action=decline]").get_attribute("action") == (
            f"/contacts/requests/{request_id}/decline/")
        assert ben.locator("#contacts-live-note").inner_text() == (
            "New contact request from Cleo.")
        assert ben.locator("#incoming-empty").is_hidden()

        cleo.goto(f"{base}/contacts/")
        row.locator("[data-action=accept] button").click()
        added = cleo.locator("#contact-list li[data-user-id]", has_text="Ben")
        added.wait_for(timeout=WAIT)
        assert added.locator(".person-name .muted").inner_text() == "@ben"
        assert added.locator(".person-name .rating-tag").inner_text() == "1612"
        assert added.locator(".social-presence-line [data-presence]").count() == 1
        # the same buttons as a row the page was served with (they came only on a reload)
        links = added.locator(".person-actions a")
        assert [links.nth(i).get_attribute("href") for i in range(links.count())] == [
            "/messages/with/ben/", "/invitations/?to=ben"]
        forms = added.locator(".person-actions form")
        assert [forms.nth(i).get_attribute("action") for i in range(forms.count())] == [
            "/contacts/remove/ben/", "/contacts/block/ben/"]
        assert forms.nth(1).get_attribute("data-confirm") == (
            "Block Ben? They are not told: to them you look like someone who takes no "
            "messages, invitations or challenges.")
        assert forms.nth(0).locator("input[name=csrfmiddlewaretoken]").count() == 1
        assert cleo.locator("#contacts-live-note").inner_text() == (
            "Ben is now one of your contacts.")

        ben.goto(f"{base}/messages/with/cleo/")
        shown = ben.locator("#messages-list li")
        assert shown.count() == 50 and shown.first.inner_text().endswith("cleo 3")
        ben.click("#load-older")
        ben.locator("#messages-list li", has_text="cleo 0").wait_for(timeout=WAIT)
        assert shown.count() == 53
        assert shown.first.locator(".chat-body").inner_text() == "cleo 0"
        assert shown.first.locator(".chat-author").inner_text() == "Cleo"
        assert ben.locator(".load-older").is_hidden()
        assert not errors, errors
    finally:
        ben_ctx.close()
        cleo_ctx.close()



def test_an_invitation_opened_from_the_contact_list_and_accepted(site, browser):
    """Anna invites Ben from her contacts with no table of hers: one form opens the table and
    invites him. Ben, away when it came, finds it on his home page and sits down; Anna, gone
    elsewhere meanwhile, is called back to the table that has started. (An acceptance that
    leaves seats free says "accepted your invitation": notify.js, invitationAccepted.)"""
    base, sessions = site
    errors: list[str] = []
    anna_ctx, anna = _page(browser, base, sessions["anna"], errors)
    ben_ctx, ben = _page(browser, base, sessions["ben"], errors)
    try:
        anna.goto(f"{base}/contacts/")
        anna.locator("#contact-list li", has_text="Ben").locator("a", has_text="Invite").click()
        anna.select_option("#id_mode", "straight")
        anna.click("#new-table button[type=submit]")
        anna.wait_for_url("**/tables/*/")
        table_url = anna.url.removeprefix(base)
        anna.goto(f"{base}/messages/")  # elsewhere on the site when Ben answers

        ben.goto(f"{base}/")
        invited = ben.locator("#invitations-waiting li", has_text="Anna")
        invited.locator("button", has_text="Accept and sit down").click()
        ben.wait_for_url(f"**{table_url}")
        ben.wait_for_selector(".tbl[data-status=playing]", timeout=WAIT)

        # Ben filled the table: the game has started (one toast for the table, not two)
        toast = anna.locator(".notify-toast", has_text="Your game has started")
        toast.wait_for(timeout=WAIT)
        anna.wait_for_timeout(500)
        assert anna.locator(".notify-toast").count() == 1
        assert toast.locator("a").get_attribute("href") == table_url
        assert ben.locator(".notify-toast", has_text="accepted your invitation").count() == 0
        assert not errors, errors
    finally:
        anna_ctx.close()
        ben_ctx.close()


def test_a_message_read_in_one_tab_leaves_no_toast_in_another(site, browser):
    """Ben has the contacts page open in one tab and his conversation with Anna in another:
    Anna's message toasts in the first, and goes away from it once the second has read it
    (it stayed, announcing a message he had read)."""
    base, sessions = site
    errors: list[str] = []
    anna_ctx, anna = _page(browser, base, sessions["anna"], errors)
    ben_ctx, ben = _page(browser, base, sessions["ben"], errors)
    ben_chat = ben_ctx.new_page()
    try:
        ben.goto(f"{base}/contacts/")
        anna.goto(f"{base}/messages/with/ben/")
        anna.locator("#composer").wait_for(timeout=WAIT)
        # the conversation tab is opened once the message is there: it reads it as it loads
        anna.fill("#message-body", "read me elsewhere")
        anna.press("#message-body", "Enter")
        toast = ben.locator(".notify-toast", has_text="New message from Anna")
        toast.wait_for(timeout=WAIT)
        ben_chat.goto(f"{base}/messages/with/anna/")
        ben_chat.locator("#messages-list li", has_text="read me elsewhere").wait_for(timeout=WAIT)
        # the frame that says it was read sets the badge and drops the toast in one go (the
        # toast would go by itself only after 8 s)
        ben.wait_for_function(
            "document.querySelector('#unread-badge').dataset.count === '0'", timeout=WAIT)
        assert toast.count() == 0
        assert not errors, errors
    finally:
        anna_ctx.close()
        ben_ctx.close()


def _invite_ben(anna, ben, base):
    """Anna invites Ben to a new table from her contacts; the toast it makes on Ben's page."""
    anna.goto(f"{base}/contacts/")
    anna.locator("#contact-list li", has_text="Ben").locator("a", has_text="Invite").click()
    anna.click("#new-table button[type=submit]")
    anna.wait_for_url("**/tables/*/")
    toast = ben.locator(".notify-toast", has_text="Anna")
    toast.wait_for(timeout=WAIT)
    return toast


def _covered_by(page, toast, selector):
    """The classes of the elements matching ``selector`` that ``toast`` lies over."""
    return page.evaluate("""([t, selector]) => [...document.querySelectorAll(selector)]
        .filter((e) => {
          const r = e.getBoundingClientRect();
          return r.width && r.top < t.y + t.height && r.bottom > t.y
            && r.left < t.x + t.width && r.right > t.x;
        }).map((e) => e.className)""", [toast.bounding_box(), selector])


def test_an_invitation_during_a_game_leaves_the_hand_free(site, browser):
    """Ben plays the computer on his phone when Anna invites him: the toast stands under the
    table's bar, over the opponent, not over his hand and his move (it covered half the hand
    of a timed game, for good)."""
    base, sessions = site
    errors: list[str] = []
    anna_ctx, anna = _page(browser, base, sessions["anna"], errors)
    ben_ctx, ben = _page(browser, base, sessions["ben"], errors,
                         viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    try:
        ben.goto(f"{base}/play/")
        ben.select_option("select[name=mode]", "classic")
        ben.select_option("select[name=level]", "1")
        ben.click(".computer-form button[type=submit]")
        ben.wait_for_selector(".tbl[data-status=playing] .tbl-main .hand-card")
        toast = _invite_ben(anna, ben, base)
        covered = _covered_by(ben, toast, ".hand-card, .tbl-actions .button, .pile")
        assert covered == [], covered
        # the game over, a second invitation's toast leaves the result and its buttons free
        # too (it stood in the corner again, over the hand)
        toast.locator("button", has_text="Dismiss").click()
        ben.evaluate("window.ginTable.resign()")
        ben.wait_for_selector(".tbl[data-status=finished] .tbl-panel .button")
        toast = _invite_ben(anna, ben, base)
        covered = _covered_by(ben, toast, ".hand-card, .tbl-panel .button, .tbl-panel .card")
        assert covered == [], covered
        assert not errors, errors
    finally:
        anna_ctx.close()
        ben_ctx.close()



def test_ticking_rated_on_the_invitation_form_unticks_private(site, browser):
    """The form ticks "Private table" first; ticking "Rated game" beside it was refused
    after sending ("A private game is casual…", an audit). A private game is casual, so
    ticking one box unticks the other (nothing is sent here: the module's other tests share
    anna and ben)."""
    base, sessions = site
    errors: list[str] = []
    ctx, anna = _page(browser, base, sessions["anna"], errors)
    try:
        anna.goto(f"{base}/invitations/?to=ben")
        assert anna.is_checked("#id_private") and not anna.is_checked("#id_rated")
        anna.check("#id_rated")
        assert not anna.is_checked("#id_private")
        anna.check("#id_private")
        assert not anna.is_checked("#id_rated")
        assert not errors, errors
    finally:
        ctx.close()
