"""The base layout and the account pages: navigation, accessibility hooks, no inline
styles or scripts (the Content-Security-Policy would block them), error pages."""
import re

import pytest
from django.test import RequestFactory
from django.urls import reverse

pytestmark = pytest.mark.django_db

INLINE_STYLE = re.compile(r"<[^>]+\sstyle\s*=", re.I)
INLINE_HANDLER = re.compile(r"<[^>]+\son[a-z]+\s*=", re.I)
SCRIPT_TAG = re.compile(r"<script\b([^>]*)>(.*?)</script>", re.I | re.S)


def assert_csp_clean(html: str, where: str) -> None:
    assert not INLINE_STYLE.search(html), f"inline style on {where}"
    assert not INLINE_HANDLER.search(html), f"inline event handler on {where}"
    for attrs, body in SCRIPT_TAG.findall(html):
        if "application/json" in attrs:
            continue  # data, not code
        assert "src=" in attrs and not body.strip(), f"inline script on {where}"


ANONYMOUS_PAGES = [
    "home",
    "account_login",
    "account_signup",
    "account_reset_password",
    "account_reset_password_done",
    "account_email_verification_sent",
]
MEMBER_PAGES = [
    "accounts:edit",
    "account_email",
    "account_change_password",
    "account_logout",
]


@pytest.mark.parametrize("name", ANONYMOUS_PAGES)
def test_public_account_pages_use_the_site_layout(client, name):
    response = client.get(reverse(name))
    assert response.status_code == 200
    html = response.content.decode()
    assert '<a class="skip-link" href="#main">' in html
    assert '<main id="main"' in html
    assert 'aria-label="Main"' in html
    assert reverse("games:lobby") in html
    assert reverse("account_login") in html and reverse("account_signup") in html
    assert html.count("<h1") == 1
    assert_csp_clean(html, name)


@pytest.mark.parametrize("name", MEMBER_PAGES)
def test_member_pages_use_the_site_layout(alice_client, user, name):
    response = alice_client.get(reverse(name))
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="unread-badge"' in html
    assert reverse("social:inbox") in html
    assert user.get_absolute_url() in html
    assert 'action="/accounts/logout/"' in html
    assert html.count("<h1") == 1
    assert_csp_clean(html, name)


def test_settings_pages_share_a_navigation_marking_the_current_page(alice_client):
    for name, label in (
        ("accounts:edit", "Profile"),
        ("account_email", "Email address"),
        ("account_change_password", "Password"),
    ):
        html = alice_client.get(reverse(name)).content.decode()
        assert 'aria-label="Account settings"' in html
        assert f'href="{reverse(name)}" aria-current="page">{label}</a>' in html


def test_every_form_field_has_a_label(alice_client):
    from django.test import Client

    anonymous = Client()
    pages = [(anonymous, "account_login"), (anonymous, "account_signup")]
    pages += [(alice_client, n) for n in ("accounts:edit", "account_change_password")]
    for who, name in pages:
        html = who.get(reverse(name)).content.decode()
        ids = re.findall(r'<(?:input|select|textarea)\b(?![^>]*type="(?:hidden|submit)")'
                         r'[^>]*\bid="([^"]+)"', html)
        assert ids, name
        for field_id in ids:
            assert f'for="{field_id}"' in html, f"{name}: #{field_id} has no label"


def test_nav_marks_the_current_section(alice_client, user):
    html = alice_client.get(user.get_absolute_url()).content.decode()
    assert re.search(r'class="nav-profile" href="[^"]+" aria-current="page"', html)
    html = alice_client.get(reverse("games:lobby")).content.decode()
    assert f'href="{reverse("games:lobby")}" aria-current="page"' in html


def test_logged_in_nav_shows_the_users_avatar(alice_client):
    html = alice_client.get(reverse("home")).content.decode()
    assert re.search(r'class="nav-profile"[^>]*><img class="avatar"', html)


def test_messages_are_announced(alice_client):
    response = alice_client.post(
        reverse("accounts:edit"), {"time_zone": "UTC", "display_name": "A"}, follow=True
    )
    html = response.content.decode()
    assert 'role="status"' in html and 'aria-live="polite"' in html
    assert "Your profile has been saved." in html


def test_404_page(client):
    response = client.get("/definitely/not/here/")
    assert response.status_code == 404
    html = response.content.decode()
    assert "Page not found" in html and "Skip to content" in html
    assert_csp_clean(html, "404")


def test_403_and_500_pages_render():
    from ginsite import views

    request = RequestFactory().get("/")
    from django.contrib.auth.models import AnonymousUser

    request.user = AnonymousUser()
    response = views.permission_denied(request)
    assert response.status_code == 403
    assert b"Not allowed" in response.content
    response = views.server_error(request)
    assert response.status_code == 500
    html = response.content.decode()
    assert "Something went wrong" in html
    assert_csp_clean(html, "500")


def test_429_page_explains_what_to_do(client, make_user):
    make_user(username="zed")
    for _ in range(6):
        response = client.post(reverse("account_login"), {"login": "zed", "password": "no"})
    assert response.status_code == 429
    html = response.content.decode()
    assert "Too many attempts" in html and reverse("account_reset_password") in html
    assert_csp_clean(html, "429")



def test_429_page_offers_a_way_on_that_fits_where_it_came(rf):
    """Too many sign-ups offered "Forgot your password?" (to someone who has none yet)."""
    from allauth.core.ratelimit import respond_429
    from django.contrib.auth.models import AnonymousUser

    pages = {}
    for path in (reverse("account_signup"), "/tables/1/chat/"):
        request = rf.post(path)
        request.user = AnonymousUser()
        pages[path] = respond_429(request).content.decode()
    assert reverse("account_reset_password") not in pages[reverse("account_signup")]
    assert f'button-secondary" href="{reverse("account_login")}">Log in</a>' in pages[
        reverse("account_signup")]
    assert reverse("account_reset_password") not in pages["/tables/1/chat/"]
    assert 'button-secondary" href="/play/">Find a game</a>' in pages["/tables/1/chat/"]
