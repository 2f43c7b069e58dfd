"""A signed-out visitor who presses a button that posts (a session lapsed in another tab, then
"Start a game") logs in and comes back to the page the button was on: the log-in had sent them
on to the POST-only address, which answered "405 This address is not a page"."""
from __future__ import annotations

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db

POST_ONLY = ["/play/computer/", "/play/classic/quick/", "/tables/1/sit/", "/tables/1/leave/",
             "/contacts/add/bob/", "/messages/c/1/read/", "/invitations/send/",
             "/tournaments/1/enter/"]


@pytest.mark.parametrize("url", POST_ONLY)
def test_the_log_in_leads_back_to_the_page_the_form_was_on(url):
    visitor = Client()
    posted = visitor.post(url, HTTP_REFERER="http://testserver/play/classic/?rated=1")
    assert posted.status_code == 302
    assert posted["Location"] == "/accounts/login/?next=/play/classic/%3Frated%3D1"
    # a typed address, or a page of another site: the site's root
    assert visitor.get(url)["Location"] == "/accounts/login/?next=/"
    assert visitor.post(url, HTTP_REFERER="https://evil.example/play/")["Location"] == \
        "/accounts/login/?next=/"
    # (never the log-in page itself)
    assert visitor.post(url, HTTP_REFERER="http://testserver/accounts/login/?next=/x/")[
        "Location"] == "/accounts/login/?next=/"
    # a script asking for JSON is told to sign in, as before
    answer = visitor.post(url, HTTP_ACCEPT="application/json")
    assert answer.status_code == 401 and answer.json()["error"]["code"] == "sign_in"


def test_the_whole_way_round(make_user):
    make_user("ann", password="a-Strong-pass-123")
    visitor = Client()
    sent = visitor.post("/play/computer/", HTTP_REFERER="http://testserver/play/")
    login = visitor.post(sent["Location"], {"login": "ann", "password": "a-Strong-pass-123"})
    assert login.status_code == 302 and login["Location"] == "/play/"
    assert visitor.get(login["Location"]).status_code == 200
