"""Sign-up emails on the run command's console (the default backend, accounts/mail.py): the
verification link framed on one line of its own, whole, and it works."""
from __future__ import annotations

import re

import pytest
from allauth.account.models import EmailAddress
from django.urls import reverse

from tests.support.accounts import PASSWORD

pytestmark = pytest.mark.django_db

FRAMED = re.compile(r"^={78}\n  Email to (.+)\n  >>> Open this link to verify: (\S+)\n={78}$",
                    re.MULTILINE)


def test_the_signup_email_prints_a_framed_verification_link(client, settings, capsys):
    from ginsite.settings import base as base_settings  # the tests' own settings use locmem

    assert base_settings.EMAIL_BACKEND == "accounts.mail.ConsoleEmailBackend"
    settings.EMAIL_BACKEND = "accounts.mail.ConsoleEmailBackend"
    settings.SITE_URL = "http://testserver"
    response = client.post(reverse("account_signup"), {
        "username": "consoleplayer", "email": "console.player@example.com",
        "password1": PASSWORD, "password2": PASSWORD,
    })
    assert response.status_code == 302
    out = capsys.readouterr().out
    found = FRAMED.findall(out)
    assert len(found) == 1, out
    to, link = found[0]
    assert to.startswith("console.player@example.com: ")
    path = link.split("://", 1)[1].partition("/")[2]
    assert ("/" + path).startswith("/accounts/confirm-email/")
    # The link as printed verifies the address.
    response = client.post("/" + path)
    assert response.status_code == 302
    assert EmailAddress.objects.get(email="console.player@example.com").verified


def test_an_email_without_links_gets_no_box(settings, capsys):
    from django.core.mail import send_mail

    settings.EMAIL_BACKEND = "accounts.mail.ConsoleEmailBackend"
    send_mail("Hello", "Nothing to open here. See you on http://example.com/", None,
              ["a@example.com"])
    out = capsys.readouterr().out
    assert "Hello" in out and ">>>" not in out and "=" * 78 not in out
