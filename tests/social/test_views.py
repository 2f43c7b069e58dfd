"""Pages and endpoints: participants, a third user, anonymous visitors and bad input."""
import pytest
from django.urls import reverse

from social import services
from social.models import Block, Contact, ContactRequest, Conversation, Message, MessagePolicy

pytestmark = pytest.mark.django_db

JSON = {"HTTP_ACCEPT": "application/json"}


@pytest.fixture
def chat(alice, bob):
    services.message_send(sender=alice, recipient=bob, body="the secret plan")
    return Conversation.objects.get()


def _anonymous_endpoints(chat, alice, request_id=1, invitation_id=1):
    c = chat.pk
    return [
        ("get", reverse("social:inbox")),
        ("get", reverse("social:unread")),
        ("get", reverse("social:contacts")),
        ("get", reverse("social:contacts_json")),
        ("get", reverse("social:privacy")),
        ("post", reverse("social:privacy")),
        ("get", reverse("social:invitations")),
        ("post", reverse("social:invitation_send")),
        ("post", reverse("social:invitation_accept", args=[invitation_id])),
        ("post", reverse("social:invitation_decline", args=[invitation_id])),
        ("post", reverse("social:invitation_cancel", args=[invitation_id])),
        ("get", reverse("social:conversation", args=["alice"])),
        ("post", reverse("social:conversation", args=["alice"])),
        ("get", reverse("social:history", args=[c])),
        ("post", reverse("social:read", args=[c])),
        ("post", reverse("social:delete", args=[c])),
        ("post", reverse("social:request_send", args=["alice"])),
        ("post", reverse("social:request_accept", args=[request_id])),
        ("post", reverse("social:request_decline", args=[request_id])),
        ("post", reverse("social:request_cancel", args=[request_id])),
        ("post", reverse("social:contact_remove", args=["alice"])),
        ("post", reverse("social:block", args=["alice"])),
        ("post", reverse("social:block_by_name")),
        ("post", reverse("social:unblock", args=["alice"])),
    ]


def test_anonymous_is_sent_to_login_everywhere_and_nothing_changes(client, chat, alice):
    for method, url in _anonymous_endpoints(chat, alice):
        response = getattr(client, method)(url, {"body": "x", "message_policy": "nobody"})
        assert response.status_code == 302, url
        assert reverse("account_login") in response["Location"], url
        assert b"secret" not in response.content
    assert Message.objects.count() == 1
    assert not Block.objects.exists() and not ContactRequest.objects.exists()
    # a script (asking for JSON) is told in JSON to sign in: it cannot follow a redirect to a
    # login page
    for method, url in _anonymous_endpoints(chat, alice):
        response = getattr(client, method)(url, {"body": "x"}, **JSON)
        assert response.status_code == 401, url
        assert response.json() == {"ok": False, "error": {"code": "sign_in",
                                                          "message": "Sign in first."}}, url
    assert Message.objects.count() == 1


def test_third_user_cannot_read_or_change_a_conversation(client_for, chat, carol):
    c = client_for(carol)
    for method, url in [
        ("get", reverse("social:history", args=[chat.pk])),
        ("post", reverse("social:read", args=[chat.pk])),
        ("post", reverse("social:delete", args=[chat.pk])),
    ]:
        response = getattr(c, method)(url)
        assert response.status_code == 404, url
        assert b"secret" not in response.content
        response = getattr(c, method)(url, **JSON)
        assert response.status_code == 404, url
        assert b"secret" not in response.content
        # in JSON, as protocol.md promises (it was the HTML 404 page)
        assert response.json()["error"]["code"] == "not_found", url
    # Her own pages show nothing of it either.
    for name in ("social:inbox", "social:contacts"):
        response = c.get(reverse(name))
        assert response.status_code == 200 and b"secret" not in response.content
    response = c.get(reverse("social:conversation", args=["alice"]))
    assert response.status_code == 200 and b"secret" not in response.content
    assert c.get(reverse("social:unread")).json() == {"unread": 0}
    member_markers = list(chat.members.values_list("deleted_up_to", "last_read_id"))
    assert (0, 0) in member_markers


def test_participants_see_the_conversation(client_for, chat, alice, bob):
    response = client_for(bob).get(reverse("social:inbox"))
    assert b"the secret plan" in response.content and b"Alice" in response.content
    page = client_for(bob).get(reverse("social:conversation", args=["alice"]))
    assert page.status_code == 200 and b"the secret plan" in page.content
    # Viewing the latest messages marks them read.
    assert client_for(bob).get(reverse("social:unread")).json() == {"unread": 0}
    data = client_for(alice).get(reverse("social:history", args=[chat.pk])).json()
    assert [m["body"] for m in data["messages"]] == ["the secret plan"]
    assert data["has_more"] is False


def test_send_over_http_json_and_form(client_for, alice, bob):
    c = client_for(alice)
    url = reverse("social:conversation", args=["bob"])
    data = c.post(url, {"body": "  hello bob  "}, **JSON).json()
    assert data["ok"] and data["message"]["body"] == "hello bob"
    assert data["message"]["sender"]["username"] == "alice"
    response = c.post(url, {"body": "form post"})
    assert response.status_code == 302
    assert list(Message.objects.values_list("body", flat=True)) == ["hello bob", "form post"]
    # The server-rendered badge of bob shows 2.
    page = client_for(bob).get(reverse("social:contacts"))
    assert b'id="unread-badge" data-count="2"' in page.content


def test_send_errors_are_clear_and_store_nothing(client_for, alice, bob, settings):
    c = client_for(alice)
    url = reverse("social:conversation", args=["bob"])
    response = c.post(url, {"body": "x" * 2001}, **JSON)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "too_long"
    response = c.post(url, {"body": ""}, **JSON)
    assert response.status_code == 400 and response.json()["error"]["code"] == "empty"
    # Form post keeps the draft and shows the error.
    response = c.post(url, {"body": "y" * 2001})
    assert response.status_code == 400 and b"at most 2,000 characters" in response.content
    settings.SOCIAL_MESSAGE_RATE = 1
    assert c.post(url, {"body": "one"}, **JSON).status_code == 200
    response = c.post(url, {"body": "two"}, **JSON)
    assert response.status_code == 429
    assert response.json()["error"]["code"] == "rate_limited"
    assert "too fast" in response.json()["error"]["message"]
    response = c.post(url, {"body": "three"})
    assert response.status_code == 429 and b"too fast" in response.content
    assert list(Message.objects.values_list("body", flat=True)) == ["one"]


def test_blocked_sender_gets_generic_refusal_over_http(client_for, alice, bob):
    services.block_add(user=bob, target=alice)
    c = client_for(alice)
    url = reverse("social:conversation", args=["bob"])
    response = c.post(url, {"body": "hi"}, **JSON)
    assert response.status_code == 403
    assert response.json()["error"]["message"] == "You cannot message this user."
    assert b"block" not in response.content.lower()
    page = c.get(url)
    assert b"You cannot message this user." in page.content
    assert b'id="composer"' not in page.content
    assert b"block" not in page.content.split(b'<main')[1].lower().replace(b"blocking", b"")
    # a contact request "goes" as to anybody, and waits unseen by bob
    response = c.post(reverse("social:request_send", args=["bob"]), **JSON)
    assert response.status_code == 200
    assert not Message.objects.exists()
    assert "alice" not in client_for(bob).get(reverse("social:contacts")).content.decode()


def test_unknown_and_inactive_users_are_404(client_for, alice, make_user):
    gone = make_user(username="gone", is_active=False)
    c = client_for(alice)
    for name in ("social:conversation", "social:request_send", "social:block"):
        method = c.get if name == "social:conversation" else c.post
        assert method(reverse(name, args=["nobody-here"])).status_code == 404
        assert method(reverse(name, args=[gone.username])).status_code == 404
    assert c.get(reverse("social:conversation", args=["alice"])).status_code == 404
    # a message to yourself from a script says so, as the socket's ``send`` does (it was a
    # bare "Not found."; an outside audit)
    to_self = c.post(reverse("social:conversation", args=["alice"]), {"body": "hi"}, **JSON)
    assert to_self.status_code == 400
    assert to_self.json()["error"] == {"code": "self", "message": "You cannot message yourself."}
    answer = c.post(reverse("social:contact_remove", args=["nobody-here"]), **JSON)
    assert answer.status_code == 404 and answer.json()["ok"] is False


def test_script_in_a_message_renders_inert(client_for, alice, bob):
    evil = '<script>alert(1)</script><img src=x onerror=alert(2)> "quoted" ' \
           'javascript:alert(3) https://example.com/a?b=1&c=<b>'
    services.message_send(sender=alice, recipient=bob, body=evil)
    for url in (reverse("social:conversation", args=["alice"]), reverse("social:inbox")):
        content = client_for(bob).get(url).content.decode()
        assert "<script>alert(1)" not in content
        assert "<img src=x" not in content
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in content
    content = client_for(bob).get(reverse("social:conversation", args=["alice"])).content.decode()
    assert (
        '<a href="https://example.com/a?b=1&amp;c=" rel="nofollow noopener noreferrer" '
        'target="_blank">https://example.com/a?b=1&amp;c=</a>&lt;b&gt;'
    ) in content
    assert 'href="javascript' not in content
    # JSON carries the raw text; the page script puts it in with textContent.
    data = client_for(bob).get(
        reverse("social:history", args=[Conversation.objects.get().pk])
    ).json()
    assert data["messages"][0]["body"] == evil


def test_contact_request_flow_over_http(client_for, alice, bob, carol):
    a, b, c = client_for(alice), client_for(bob), client_for(carol)
    assert a.post(reverse("social:request_send", args=["bob"])).status_code == 302
    request = ContactRequest.objects.get()
    # Carol cannot answer it, alice cannot accept her own, bob cannot cancel it.
    assert c.post(reverse("social:request_accept", args=[request.pk])).status_code == 404
    assert c.post(reverse("social:request_decline", args=[request.pk])).status_code == 404
    assert c.post(reverse("social:request_cancel", args=[request.pk])).status_code == 404
    assert a.post(reverse("social:request_accept", args=[request.pk])).status_code == 404
    assert b.post(reverse("social:request_cancel", args=[request.pk]), **JSON).status_code == 404
    assert ContactRequest.objects.filter(pk=request.pk).exists()
    page = b.get(reverse("social:contacts")).content.decode()
    assert "Requests to you" in page and "@alice" in page
    assert b.post(reverse("social:request_accept", args=[request.pk])).status_code == 302
    assert Contact.objects.count() == 2
    page = a.get(reverse("social:contacts")).content.decode()
    assert f'data-user-id="{bob.pk}"' in page
    assert c.post(reverse("social:contact_remove", args=["bob"])).status_code == 404
    assert Contact.objects.count() == 2  # carol had no such contact: nothing changes
    assert a.post(reverse("social:contact_remove", args=["bob"]), **JSON).json()["ok"]
    assert not Contact.objects.exists()


def test_a_contact_request_waits_on_the_home_page_and_the_contacts_tab(client_for, alice,
                                                                          bob, carol):
    """A player away when a request came had no sign of it but on the contacts page (the
    live toast reaches only a player who is online: an audit): the home page lists it with
    Accept and Decline, and the Contacts tab counts it, until it is answered."""
    a, b, c = client_for(alice), client_for(bob), client_for(carol)
    a.post(reverse("social:request_send", args=["bob"]))
    c.post(reverse("social:request_send", args=["bob"]))
    home = b.get("/").content.decode()
    assert "Contact requests" in home and "@alice" in home and "@carol" in home
    assert '2<span class="visually-hidden"> contact requests to answer</span>' in b.get(
        reverse("social:inbox")).content.decode()
    # nobody else sees them: not the sender, not a visitor
    assert "Contact requests" not in a.get("/").content.decode()
    assert 'contact request' not in a.get(reverse("social:inbox")).content.decode()
    from django.test import Client

    assert "Contact requests" not in Client().get("/").content.decode()
    # one from a player bob blocks is kept unseen (they cannot tell), and uncounted (blocking
    # drops the requests between them: carol asks again after it)
    services.block_add(user=bob, target=carol)
    c.post(reverse("social:request_send", args=["bob"]))
    assert ContactRequest.objects.filter(from_user=carol, to_user=bob).exists()
    assert "@carol" not in b.get("/").content.decode()
    assert '1<span class="visually-hidden"> contact request to answer</span>' in b.get(
        reverse("social:inbox")).content.decode()
    # Accept on the home page comes back to it, the request answered
    request = ContactRequest.objects.get(from_user=alice)
    answer = b.post(reverse("social:request_accept", args=[request.pk]), {"next": "/"})
    assert answer.status_code == 302 and answer["Location"] == "/"
    assert Contact.objects.filter(user=bob, contact=alice).exists()
    home = b.get("/").content.decode()
    assert "Contact requests" not in home
    assert "contact requests to answer" not in b.get(reverse("social:contacts")).content.decode()
    # ten at most, and a way to the rest
    from django.contrib.auth import get_user_model

    for i in range(11):
        services.contact_request_send(
            sender=get_user_model().objects.create_user(f"asker{i}"), recipient=bob)
    home = b.get("/").content.decode()
    assert home.count('data-request-id="') == 10
    assert "More requests on the Contacts page" in home


def test_search_page(client_for, alice, bob):
    services.block_add(user=bob, target=alice)
    page = client_for(alice).get(reverse("social:contacts"), {"q": "bo"}).content.decode()
    assert "@bob" in page and "Blocked" not in page  # found as anybody: no word of it
    page = client_for(bob).get(reverse("social:contacts"), {"q": "ali"}).content.decode()
    assert "@alice" in page and "Blocked" in page


def test_privacy_page_preference_and_blocking(client_for, alice, bob):
    c = client_for(alice)
    assert c.post(reverse("social:privacy"), {"message_policy": "contacts"}).status_code == 302
    assert alice.social_settings.message_policy == MessagePolicy.CONTACTS
    response = c.post(reverse("social:privacy"), {"message_policy": "<bad>"}, **JSON)
    assert response.status_code == 400
    alice.social_settings.refresh_from_db()
    assert alice.social_settings.message_policy == MessagePolicy.CONTACTS
    assert c.post(reverse("social:block_by_name"), {"username": "@bob"}).status_code == 302
    assert Block.objects.filter(blocker=alice, blocked=bob).exists()
    page = c.get(reverse("social:privacy")).content.decode()
    assert "@bob" in page and 'value="contacts" checked' in page
    response = c.post(reverse("social:block_by_name"), {"username": "nobody"}, **JSON)
    assert response.status_code == 400
    assert c.post(reverse("social:unblock", args=["bob"])).status_code == 302
    assert not Block.objects.exists()
    # Bob's pages never mention that he was blocked.
    assert b"alice" not in client_for(bob).get(reverse("social:privacy")).content.lower().split(
        b"<main")[1]


def test_delete_conversation_for_yourself_over_http(client_for, chat, alice, bob):
    response = client_for(alice).post(reverse("social:delete", args=[chat.pk]))
    assert response.status_code == 302
    assert b"the secret plan" not in client_for(alice).get(reverse("social:inbox")).content
    assert b"the secret plan" in client_for(bob).get(reverse("social:inbox")).content


def test_bad_ids_and_methods(client_for, chat, alice):
    c = client_for(alice)
    assert c.get(reverse("social:read", args=[chat.pk])).status_code == 405
    assert c.get(reverse("social:delete", args=[chat.pk])).status_code == 405
    assert c.post(reverse("social:read", args=[chat.pk]), {"up_to": "abc"}).status_code == 302
    assert c.get(reverse("social:history", args=[999999])).status_code == 404
    response = c.get(reverse("social:history", args=[chat.pk]), {"before": "x"})
    assert response.status_code == 400  # (test_a_bad_message_id_is_refused_...)
    assert c.get(reverse("social:conversation", args=["bob"]), {"before": "-5"}).status_code == 400
    assert c.post(reverse("social:conversation", args=["bob"]),
                  {"body": "x"}, HTTP_ACCEPT="text/html").status_code == 302


def test_open_redirect_is_refused(client_for, alice, bob):
    response = client_for(alice).post(
        reverse("social:request_send", args=["bob"]), {"next": "https://evil.example/"}
    )
    assert response["Location"] == reverse("social:contacts")


def test_pages_render_for_a_logged_in_user(client_for, alice):
    c = client_for(alice)
    for name in ("social:inbox", "social:contacts", "social:privacy", "social:invitations"):
        response = c.get(reverse(name))
        assert response.status_code == 200
        content = response.content.decode()
        assert "js/notify.js" in content and "<style" not in content
        assert "<script>" not in content  # CSP: no inline scripts


def test_profile_actions_tag(rf, alice, bob):
    from django.contrib.auth.models import AnonymousUser
    from django.template import Context, Template

    template = Template("{% load social_tags %}{% social_actions person %}")
    request = rf.get("/u/bob/")
    request.user = alice
    html = template.render(Context({"request": request, "person": bob, "csrf_token": "t"}))
    assert "Add contact" in html and "/messages/with/bob/" in html and "Block" in html
    services.contact_request_send(sender=alice, recipient=bob)
    assert "Contact request sent" in template.render(
        Context({"request": request, "person": bob, "csrf_token": "t"})
    )
    request.user = AnonymousUser()
    assert template.render(Context({"request": request, "person": bob})).strip() == ""
    request.user = bob
    assert template.render(Context({"request": request, "person": bob})).strip() == ""


def test_presence_is_shown_to_contacts_only(client_for, contacts, carol):
    from social.presence import presence_connect

    alice, bob = contacts
    presence_connect(alice.pk, "tab")
    page = client_for(bob).get(reverse("social:conversation", args=["alice"])).content.decode()
    assert "social-presence-online" in page
    page = client_for(carol).get(reverse("social:conversation", args=["alice"])).content.decode()
    assert "social-presence" not in page and "Online" not in page
    data = client_for(bob).get(reverse("social:contacts_json")).json()
    assert data["contacts"][0]["username"] == "alice" and data["contacts"][0]["state"] == "online"
    assert client_for(carol).get(reverse("social:contacts_json")).json() == {"contacts": []}


def test_form_answers_say_what_happened_and_to_whom(client_for, alice, bob):
    """Each form endpoint returns to its page with a message naming the other person, and
    refuses with the service's reason (the views share one way of answering)."""
    from django.contrib.messages import get_messages

    c = client_for(alice)

    def said(response):
        assert response.status_code == 302
        return [str(m) for m in get_messages(response.wsgi_request)][-1:]  # the latest

    bob_name = bob.public_name
    response = c.post(reverse("social:request_send", args=["bob"]))
    assert said(response) == [f"Contact request sent to {bob_name}."]
    request = ContactRequest.objects.get()
    response = client_for(bob).post(reverse("social:request_accept", args=[request.pk]))
    assert response["Location"] == reverse("social:contacts")
    assert said(response) == ["Contact request accepted."]
    response = c.post(reverse("social:contact_remove", args=["bob"]))
    assert said(response) == [f"{bob_name} is no longer a contact."]
    response = c.post(reverse("social:block", args=["bob"]))
    assert response["Location"] == reverse("social:privacy")
    assert said(response) == [f"You blocked {bob_name}. They are not told."]
    response = c.post(reverse("social:unblock", args=["bob"]))
    assert said(response) == [f"You unblocked {bob_name}."]
    response = c.post(reverse("social:unblock", args=["bob"]), **JSON)
    assert response.status_code == 404
    assert response.json()["error"]["message"] == "You are not blocking this person."
    assert c.post(reverse("social:block", args=["nobody"])).status_code == 404
    assert not Block.objects.exists()


def test_a_missing_csrf_token_is_refused_in_json_to_a_script(alice, bob):
    from django.test import Client

    c = Client(enforce_csrf_checks=True)
    c.force_login(alice)
    answer = c.post(reverse("social:request_send", args=["bob"]), **JSON)
    assert answer.status_code == 403
    assert answer.json()["error"]["code"] == "csrf"
    assert not ContactRequest.objects.exists()
    # a form: the site's own page, which says what to do and links back to a page of the
    # site (Django's read "More information is available with DEBUG=True")
    page = c.post(reverse("social:request_send", args=["bob"]),
                  HTTP_REFERER="http://testserver/u/bob/")
    text = page.content.decode()
    assert page.status_code == 403 and page["Content-Type"].startswith("text/html")
    assert "That form had expired" in text and "reload the page and try again" in text
    assert 'href="http://testserver/u/bob/"' in text and "DEBUG" not in text
    assert 'class="site-header' in text or "<nav" in text  # the site's layout
    elsewhere = c.post(reverse("social:request_send", args=["bob"]),
                       HTTP_REFERER="https://evil.example/")
    assert "evil.example" not in elsewhere.content.decode()
    assert not ContactRequest.objects.exists()


BAD_IDS = ("abc", "-5", "0", "1.5", "99999999999999999999999", "１", " 3")


def test_a_bad_message_id_is_refused_and_nothing_is_marked_read(client_for, chat, alice,
                                                                 bob):
    """``up_to`` and ``before`` that are not message ids get a 400 naming them; a bad
    ``up_to`` had read as absent and marked the whole conversation read (an outside audit),
    where the socket's ``read`` frame refuses the same values."""
    services.message_send(sender=alice, recipient=bob, body="and another")
    c = client_for(bob)
    read = reverse("social:read", args=[chat.pk])
    for bad in BAD_IDS:
        response = c.post(read, {"up_to": bad}, **JSON)
        assert response.status_code == 400, bad
        assert response.json()["error"] == {
            "code": "bad_request", "message": '"up_to" must be a message id (a whole number).'}
        assert c.get(reverse("social:unread")).json() == {"unread": 2}, bad
        for url in (reverse("social:history", args=[chat.pk]),
                    reverse("social:conversation", args=["alice"])):
            response = c.get(url, {"before": bad}, **JSON)
            assert response.status_code == 400, (url, bad)
            assert response.json()["error"]["code"] == "bad_request"
        page = c.get(reverse("social:conversation", args=["alice"]), {"before": bad})
        assert page.status_code == 400 and b'"before" must be a message id' in page.content
        assert c.get(reverse("social:unread")).json() == {"unread": 2}, bad
    # a form post is sent back with the reason, and nothing is read either
    response = c.post(read, {"up_to": "abc"})
    assert response.status_code == 302
    assert c.get(reverse("social:unread")).json() == {"unread": 2}
    # what the page's scripts send still works: up to one message, then empty (= all)
    first = chat.messages.order_by("pk").first()
    assert c.post(read, {"up_to": str(first.pk)}, **JSON).json() == {"ok": True, "unread": 1}
    older = c.get(reverse("social:history", args=[chat.pk]), {"before": str(first.pk + 1)})
    assert [m["body"] for m in older.json()["messages"]] == ["the secret plan"]
    assert c.post(read, {"up_to": ""}, **JSON).json() == {"ok": True, "unread": 0}
