"""Sign-up, email verification, log in/out, rate limits, password and email changes."""
import html
import re

import pytest
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.core import mail
from django.urls import reverse

from tests.support.accounts import PASSWORD

pytestmark = pytest.mark.django_db

User = get_user_model()
LINK = re.compile(r"https?://testserver(/\S+)")


def emailed_path(message) -> str:
    match = LINK.search(message.body)
    assert match, message.body
    return match.group(1)


def logged_in_user_id(client):
    return client.session.get("_auth_user_id")


def login(client, login, password=PASSWORD):
    return client.post(reverse("account_login"), {"login": login, "password": password})


def test_signup_verify_email_then_log_in(client):
    response = client.post(
        reverse("account_signup"),
        {
            "username": "newplayer",
            "email": "New.Player@example.com",
            "password1": PASSWORD,
            "password2": PASSWORD,
        },
    )
    assert response.status_code == 302
    assert response.url == reverse("account_email_verification_sent")
    user = User.objects.get(username="newplayer")
    address = EmailAddress.objects.get(user=user)
    assert not address.verified
    # Verification is mandatory: not logged in yet.
    assert logged_in_user_id(client) is None

    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["new.player@example.com"]  # allauth stores emails lower-cased
    assert message.subject.startswith("[Gin Rummy]")
    assert "Gin Rummy" in message.body
    confirm_path = emailed_path(message)
    assert confirm_path.startswith("/accounts/confirm-email/")

    # Logging in before confirming only resends the link.
    fresh = client.__class__()
    response = login(fresh, "newplayer")
    assert response.status_code == 302
    assert response.url == reverse("account_email_verification_sent")
    assert logged_in_user_id(fresh) is None

    # Following the link shows a confirmation button (a GET changes nothing)...
    page = client.get(confirm_path)
    assert page.status_code == 200
    assert b"Confirm your email address" in page.content
    address.refresh_from_db()
    assert not address.verified
    # ...and pressing it confirms the address.
    response = client.post(confirm_path)
    assert response.status_code == 302
    address.refresh_from_db()
    assert address.verified and address.primary
    # confirming logs the new player in for the first time: welcomed, not welcomed back
    page = client.get(response.url)
    assert b"Welcome to Gin Rummy, newplayer." in page.content
    assert b"Welcome back" not in page.content
    # the link opened again (from the email, on another device): the address is confirmed,
    # not "expired or not valid"; a spoiled link still says that
    for again in (client, client.__class__()):
        page = " ".join(again.get(confirm_path).content.decode().split())
        assert "<strong>new.player@example.com</strong> is confirmed already" in page
        assert "expired or is not valid" not in page
    spoiled = client.__class__().get(confirm_path[:-3] + "xx/")
    assert b"expired or is not valid" in spoiled.content
    assert b"is confirmed already" not in spoiled.content

    other = client.__class__()
    response = login(other, "newplayer")
    assert response.status_code == 302
    assert response.url == reverse("home")
    assert logged_in_user_id(other) == str(user.pk)


def test_signup_rejects_taken_username_and_email(client, user):
    response = client.post(
        reverse("account_signup"),
        {
            "username": "ALICE",
            "email": "alice@example.com",
            "password1": PASSWORD,
            "password2": PASSWORD,
        },
    )
    assert response.status_code == 200
    assert b"A user with that username already exists." in response.content
    assert User.objects.count() == 1
    assert mail.outbox == [] or all("alice@example.com" in m.to for m in mail.outbox)


@pytest.mark.parametrize(("username", "message"), [
    ("admin", "That name is kept for the site"),
    ("Support", "That name is kept for the site"),
    ("\u0430dmin", "That name is kept for the site"),  # a Cyrillic "а"
    ("Computer", "Names beginning with “Computer” are kept for the site's computer players."),
    ("computer_easy", "Names beginning with “Computer”"),
    ("\u0430lice", "That looks like another player's username"),  # beside alice
    ("\u0397ELP", "That name is kept for the site"),  # a Greek capital eta: "HELP"
    ("\u0391LICE", "That looks like another player's username"),  # Greek capital alpha
    ("Lewis", "Another player goes by that name"),  # alice's display name (below)
    # a capital "I" and a small "l" are one stroke in the site's font (an audit's "aIice")
    ("aIice", "That looks like another player's username"),
    ("ALICE", "A user with that username already exists"),
    # accents and strokes are too small to see at a name's size (an audit's "ałice")
    ("a\u0142ice", "That looks like another player's username"),  # a Polish "ł"
    ("\u00e1lice", "That looks like another player's username"),  # an "á"
    ("\u04d3lice", "That looks like another player's username"),  # a Cyrillic "ӓ"
    ("\u0141ewis", "Another player goes by that name"),  # "Łewis", beside "Lewis"
    # a small "l" among capitals is a capital "I" (an audit's "ALlCE", shown as ALICE)
    ("ALlCE", "That looks like another player's username"),
    ("\u042cot", "That name is kept for the site"),  # a Cyrillic soft sign "Ь": "bot"
    ("OFFICIAL", "That name is kept for the site"),
    ("officiaI", "That name is kept for the site"),  # a capital "I" for the "l"
    ("HeIp", "That name is kept for the site"),
    # an address as a username: logging in with it read as the address, and attached
    # another person's address to the account (an audit)
    ("alice@example.com", "A username cannot hold “@”"),
    ("bob@home", "A username cannot hold “@”"),
    # characters that show nothing are named as such (it read "Enter a valid username")
    ("bob2\u200b", "Remove the invisible characters"),  # a zero-width space
    ("bo\u00adb2", "Remove the invisible characters"),  # a soft hyphen
    ("bob\u202e2", "Remove the invisible control characters"),  # a right-to-left override
])
def test_signup_refuses_a_name_that_passes_for_the_site_or_another(client, user, username,
                                                                    message):
    """A username is the name shown when no display name is set: "admin", "Computer" and
    "аlice" beside alice were taken at sign-up (an outside audit)."""
    user.display_name = "Lewis"
    user.save()
    response = client.post(reverse("account_signup"), {
        "username": username, "email": "new@example.com",
        "password1": PASSWORD, "password2": PASSWORD})
    assert response.status_code == 200
    assert message in html.unescape(response.content.decode())
    assert User.objects.count() == 1 and mail.outbox == []


def test_signup_rejects_mismatched_passwords(client):
    response = client.post(
        reverse("account_signup"),
        {
            "username": "bob",
            "email": "bob@example.com",
            "password1": PASSWORD,
            "password2": PASSWORD + "x",
        },
    )
    assert response.status_code == 200
    assert b"You must type the same password each time." in response.content
    assert not User.objects.filter(username="bob").exists()


def test_an_email_address_too_long_is_refused_not_cut(client, user):
    """allauth cut an address to the column's 254 characters: the account was made for
    "eee…e" without its "@", and its confirmation could never arrive."""
    long = "e" * 300 + "@example.com"
    response = client.post(reverse("account_signup"), {
        "username": "eve", "email": long, "password1": PASSWORD, "password2": PASSWORD})
    assert response.status_code == 200
    assert b"at most 254 characters" in response.content
    assert not User.objects.filter(username="eve").exists() and mail.outbox == []
    client.force_login(user)
    response = client.post(reverse("account_email"), {"action_add": "", "email": long})
    assert response.status_code == 200 and b"at most 254 characters" in response.content
    assert EmailAddress.objects.filter(user=user).count() == 1 and mail.outbox == []


def test_log_in_by_username(client, user):
    response = login(client, "alice")
    assert response.status_code == 302
    assert logged_in_user_id(client) == str(user.pk)
    page = client.get(response.url)
    # the account's first log-in: a brand-new player is not welcomed "back"
    assert b"Welcome to Gin Rummy, alice. You are logged in." in page.content
    assert b"Welcome back" not in page.content
    client.post(reverse("account_logout"))
    page = client.get(login(client, "alice").url)
    assert b"Welcome back, alice. You are logged in." in page.content


def test_log_in_by_email_any_case(client, user):
    response = login(client, "ALICE@example.com")
    assert response.status_code == 302
    assert logged_in_user_id(client) == str(user.pk)


def test_wrong_password_gives_a_clear_error(client, user):
    response = login(client, "alice", "not-my-password")
    assert response.status_code == 200
    assert b"The username and/or password you specified are not correct." in response.content
    assert b'role="alert"' in response.content
    assert logged_in_user_id(client) is None


@pytest.mark.parametrize("name", ["a" * 50_001, "a" * 50_000 + "@example.com", "a" * 321])
def test_a_log_in_name_longer_than_any_is_refused_not_a_500(client, user, name):
    """An outside audit: a 50,001-character name was a 500 on SQLite (its LIKE pattern
    limit, in allauth's case-insensitive username lookup)."""
    response = login(client, name, "not-my-password")
    assert response.status_code == 200
    assert "longer than any username or e-mail address" in html.unescape(
        response.content.decode())
    assert logged_in_user_id(client) is None
    assert login(client, "alice", PASSWORD).status_code == 302  # (not rate-limited for it)


def test_repeated_failed_logins_are_rate_limited_with_429(client, user):
    for _ in range(5):
        response = login(client, "alice", "wrong-password")
        assert response.status_code == 200
    response = login(client, "alice", "wrong-password")
    assert response.status_code == 429
    assert b"Too many attempts" in response.content
    # Even the right password is refused while the limit holds.
    response = login(client, "alice")
    assert response.status_code == 429
    assert logged_in_user_id(client) is None


def test_rate_limit_is_per_account(client, make_user):
    make_user(username="carol", password=PASSWORD)
    make_user(username="dave", password=PASSWORD)
    for _ in range(5):
        login(client, "carol", "wrong-password")
    assert login(client, "carol", "wrong-password").status_code == 429
    # Another account from the same address can still log in.
    response = login(client, "dave")
    assert response.status_code == 302


def test_log_out_needs_a_post(client, user):
    client.force_login(user)
    page = client.get(reverse("account_logout"))
    assert page.status_code == 200
    assert logged_in_user_id(client) == str(user.pk)
    response = client.post(reverse("account_logout"))
    assert response.status_code == 302
    assert logged_in_user_id(client) is None


def test_password_change(client, user):
    client.force_login(user)
    page = client.get(reverse("account_change_password"))
    assert page.status_code == 200
    # sentence case, as the labels (the placeholders read "Current Password")
    assert 'placeholder="Current password"' in page.content.decode()
    assert 'placeholder="New password (again)"' in page.content.decode()
    new = "another-Strong-pass-456"
    response = client.post(
        reverse("account_change_password"),
        {"oldpassword": "wrong", "password1": new, "password2": new},
    )
    assert response.status_code == 200
    # (it read "Please type your current password.", as if the field were empty)
    assert "That is not your current password." in html.unescape(response.content.decode())
    user.refresh_from_db()
    assert user.check_password(PASSWORD)

    response = client.post(
        reverse("account_change_password"),
        {"oldpassword": PASSWORD, "password1": new, "password2": new},
    )
    assert response.status_code == 302
    user.refresh_from_db()
    assert user.check_password(new)


def test_password_reset_by_email(client, user):
    response = client.post(reverse("account_reset_password"), {"email": "alice@example.com"})
    assert response.status_code == 302
    assert len(mail.outbox) == 1
    # in the site's words, as its other mails (it was allauth's stock "Password Reset Email")
    assert mail.outbox[0].subject == "[Gin Rummy] Choose a new password"
    assert 'asked for a new password for the account "alice"' in mail.outbox[0].body
    reset_path = emailed_path(mail.outbox[0])
    response = client.get(reset_path)
    # allauth moves the key out of the URL into the session, then shows the form.
    assert response.status_code == 302
    form_path = response.url
    assert client.get(form_path).status_code == 200
    new = "reset-Strong-pass-789"
    response = client.post(form_path, {"password1": new, "password2": new})
    assert response.status_code == 302
    user.refresh_from_db()
    assert user.check_password(new)
    # The link works once.
    assert b"Link not valid" in client.get(reset_path, follow=True).content


def test_password_reset_for_unknown_email_reveals_nothing(client, user):
    response = client.post(reverse("account_reset_password"), {"email": "nobody@example.com"})
    assert response.status_code == 302
    assert response.url == reverse("account_reset_password_done")
    assert [m.subject for m in mail.outbox] == ["[Gin Rummy] No account has this email address"]
    assert "No account has it. If you meant to make one, sign up here:" in mail.outbox[0].body


def test_signing_up_with_a_taken_address_mails_its_owner_in_the_sites_words(client, user):
    """allauth's stock mail read "tried to signup for an account using email address:" with
    a double space, unlike the site's other mails."""
    client.post(reverse("account_signup"), {
        "username": "newcomer", "email": "alice@example.com",
        "password1": "a-Strong-pass-456", "password2": "a-Strong-pass-456"})
    sent = [m for m in mail.outbox if m.to == ["alice@example.com"]]
    assert [m.subject for m in sent] == ["[Gin Rummy] This email address already has an account"]
    assert "It already belongs to an account." in sent[0].body and "  " not in sent[0].body


def test_email_change_takes_effect_after_confirmation(client, user):
    client.force_login(user)
    page = client.get(reverse("account_email"))
    assert page.status_code == 200
    assert b"alice@example.com" in page.content
    response = client.post(
        reverse("account_email"), {"action_add": "", "email": "alice.new@example.com"}
    )
    assert response.status_code == 302
    assert len(mail.outbox) == 1
    assert mail.outbox[0].to == ["alice.new@example.com"]
    user.refresh_from_db()
    assert user.email == "alice@example.com"

    client.post(emailed_path(mail.outbox[0]))
    user.refresh_from_db()
    assert user.email == "alice.new@example.com"
    assert EmailAddress.objects.get(user=user, primary=True).email == "alice.new@example.com"
    # The old address is gone: log in works with the new one only.
    client.logout()
    assert login(client, "alice@example.com").status_code == 200
    assert login(client, "alice.new@example.com").status_code == 302


def test_email_change_cannot_take_an_address_in_use(client, user, make_user):
    erin = make_user(username="erin", email="erin@example.com")
    client.force_login(user)
    response = client.post(
        reverse("account_email"), {"action_add": "", "email": "erin@example.com"}
    )
    # allauth prevents account enumeration, so the request looks accepted; but even the
    # emailed link cannot move the address away from Erin.
    assert response.status_code in (200, 302)
    for message in mail.outbox:
        if "/confirm-email/" in message.body:
            page = client.get(emailed_path(message))
            assert b"another account has already confirmed it" in page.content
            client.post(emailed_path(message))
    assert EmailAddress.objects.get(user=erin).verified
    assert not EmailAddress.objects.filter(user=user, email="erin@example.com", verified=True)
    user.refresh_from_db()
    assert user.email == "alice@example.com"


@pytest.mark.parametrize(
    "name",
    ["accounts:edit", "social:inbox", "account_change_password", "account_email"],
)
def test_private_pages_send_anonymous_users_to_log_in(client, name):
    url = reverse(name)
    response = client.get(url)
    assert response.status_code == 302
    assert response.url.startswith(reverse("account_login"))
    assert f"next={url}" in response.url.replace("%2F", "/")


def test_profile_edit_post_by_anonymous_changes_nothing(client, user):
    response = client.post(reverse("accounts:edit"), {"display_name": "Hacked", "time_zone": "UTC"})
    assert response.status_code == 302
    user.refresh_from_db()
    assert user.display_name == ""


def test_sending_the_link_again_too_soon_says_so(client, user):
    """"Send the link again" right after the link went out did nothing anyone could see (the
    rate limit skipped the mail, and no message said so): it now says when to ask again."""
    client.force_login(user)
    client.post(reverse("account_email"), {"action_add": "", "email": "second@example.com"})
    assert len(mail.outbox) == 1
    response = client.post(reverse("account_email"),
                           {"action_send": "", "email": "second@example.com"}, follow=True)
    assert len(mail.outbox) == 1
    page = " ".join(html.unescape(response.content.decode()).split())
    assert ("A link was sent to second@example.com a moment ago: look for it in that inbox "
            "(and its spam folder). You can ask for another in 3 minutes.") in page


def test_the_account_forms_label_in_sentence_case(client, user):
    """allauth's "Current Password" and "New Password (again)" stood out among the site's
    sentence-case labels."""
    client.force_login(user)
    page = client.get(reverse("account_change_password")).content.decode()
    for label in ("Current password", "New password", "New password (again)"):
        assert f">{label}<" in page, label
    assert "Password (again)<" not in page.replace("New password (again)<", "")


def test_a_names_shape_drops_accents_and_strokes_but_other_scripts_marks_stay():
    """(A dotless "ı" is read as the site's own shape rule reads it here: at the sign-up,
    PostgreSQL's case-insensitive username check already takes "alıce" for ALICE.)"""
    from core.text import skeleton

    for name in ("al\u0131ce", "a\u0142ice", "\u00e1lice", "\u04d3lice", "a\u1dc4lice"):
        assert skeleton(name, capital_i=True) == "alice", name
    assert skeleton("b\u03ccb", capital_i=True) == "bob"  # a Greek "ό"
    assert skeleton("\u00d8le", capital_i=True) == "ole"
    assert skeleton("a\u0142ice") == "a\u0142ice"  # the first look keeps them
    hindi = "\u0928\u092e\u0938\u094d\u0924\u0947"  # a virama and a vowel sign stay
    assert skeleton(hindi, capital_i=True) == hindi


def test_a_lookalike_is_refused_whichever_came_first(client, make_user):
    """"bоb" (a Cyrillic "о") signed up first, then "bob" was taken too: each name's look is
    stored with it (User.username_look), so the second is refused either way."""
    make_user("b\u043eb")
    response = client.post(reverse("account_signup"), {
        "username": "bob", "email": "bob@example.com",
        "password1": PASSWORD, "password2": PASSWORD})
    assert "That looks like another player's username" in html.unescape(
        response.content.decode())
    assert not User.objects.filter(username="bob").exists()


def test_the_shapes_of_names_made_before_are_written(client, user):
    """The migration that stores each name's shape (a capital "I" read as a small "l")
    writes those of the names made before: "aIice" is refused beside an old alice."""
    from django.apps import apps

    from accounts.migrations._looks import fill

    User.objects.filter(pk=user.pk).update(username_shape="", display_shape="")
    fill(apps, None)
    assert User.objects.get(pk=user.pk).username_shape == "alice"
    response = client.post(reverse("account_signup"), {
        "username": "aIice", "email": "new@example.com",
        "password1": PASSWORD, "password2": PASSWORD})
    assert "That looks like another player&#x27;s username" in response.content.decode()


@pytest.mark.parametrize("username", ["all", "aii", "Ali", "ALI"])
def test_a_small_i_and_a_small_l_stay_two_letters(client, make_user, username):
    """Only a capital "I" passes for an "l": "ali" and "all" are two names (a first cut read
    every "i" as an "l")."""
    make_user("ali")
    response = client.post(reverse("account_signup"), {
        "username": username, "email": "new@example.com",
        "password1": PASSWORD, "password2": PASSWORD})
    if username in ("Ali", "ALI"):  # the same name in other letters' case
        assert response.status_code == 200
    else:
        assert response.status_code == 302, response.content.decode()[:300]
