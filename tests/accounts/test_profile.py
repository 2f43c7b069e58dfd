"""The public profile page and the profile edit page (text fields)."""
import html

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from accounts.profile_sections import (
    ProfileSection,
    profile_section_register,
    profile_section_unregister,
)

pytestmark = pytest.mark.django_db

User = get_user_model()


def edit_data(**overrides):
    data = {
        "display_name": "Alice Liddell",
        "country": "FR",
        "time_zone": "Europe/Paris",
        "bio": "Gin player since 1999.\nLikes Oklahoma.",
    }
    data.update(overrides)
    return data


def test_public_profile_shows_the_fields(client, make_user):
    make_user(
        username="alice",
        display_name="Alice Liddell",
        country="FR",
        bio="Gin player since 1999.",
        time_zone="Europe/Paris",
    )
    response = client.get(reverse("accounts:profile", kwargs={"username": "alice"}))
    assert response.status_code == 200
    html = response.content.decode()
    assert "Alice Liddell" in html
    assert "@alice" in html
    # the country by name and code: a flag emoji is two boxes where no emoji font exists
    assert "France" in html and '<span class="country-code" aria-hidden="true">FR</span>' in html
    assert not any(0x1F1E6 <= ord(ch) <= 0x1F1FF for ch in html)
    assert "Gin player since 1999." in html
    assert "Europe/Paris" in html
    assert "Member since" in html
    assert "data:image/svg+xml;base64," in html  # the generated default avatar
    assert reverse("accounts:edit") not in html  # not your own profile


def test_own_profile_links_to_edit(client, make_user):
    alice = make_user(username="alice")
    client.force_login(alice)
    response = client.get(alice.get_absolute_url())
    assert reverse("accounts:edit") in response.content.decode()
    assert b'aria-current="page"' in response.content


def test_profile_of_unknown_user_is_404_and_of_a_closed_one_says_so(client, make_user):
    make_user(username="gone", is_active=False, display_name="Secret Name", bio="my bio")
    response = client.get("/u/nobody/")
    assert response.status_code == 404
    assert b"Page not found" in response.content
    # the games a closed account played still link to it: its page says what became of it
    page = client.get("/u/gone/").content.decode()
    assert "This account is closed" in page
    assert "Secret Name" not in page and "my bio" not in page


def test_profile_url_is_case_insensitive_with_one_canonical_address(client, make_user):
    make_user(username="Alice")
    response = client.get("/u/alice/")
    assert response.status_code == 301
    assert response.url == "/u/Alice/"


def test_markup_in_bio_and_display_name_is_escaped(client, make_user):
    make_user(
        username="mallory",
        display_name='<script>alert("x")</script>',
        bio='<img src=x onerror=alert(1)> & "quotes"',
    )
    html = client.get("/u/mallory/").content.decode()
    assert '<script>alert("x")</script>' not in html
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in html
    assert "<img src=x" not in html
    assert "&lt;img src=x onerror=alert(1)&gt; &amp; &quot;quotes&quot;" in html


def test_markup_saved_through_the_edit_page_is_escaped_everywhere(alice_client, user):
    payload = '<b onmouseover="alert(1)">hi</b>'
    response = alice_client.post(
        reverse("accounts:edit"), edit_data(display_name=payload[:40], bio=payload)
    )
    assert response.status_code == 302
    user.refresh_from_db()
    assert user.bio == payload
    for url in (user.get_absolute_url(), reverse("accounts:edit"), reverse("home")):
        html = alice_client.get(url).content.decode()
        assert "<b onmouseover" not in html, url


def test_profile_sections_registered_by_other_apps_are_rendered(
    client, make_user, settings, tmp_path
):
    (tmp_path / "stats").mkdir()
    (tmp_path / "stats" / "_section.html").write_text(
        "<p>Games played: {{ section.games }} by {{ profile_user.username }}</p>"
    )
    engine = settings.TEMPLATES[0]
    settings.TEMPLATES = [{**engine, "DIRS": [*engine["DIRS"], tmp_path]}]
    make_user(username="alice")
    make_user(username="bob")
    profile_section_register(
        ProfileSection(
            key="test-stats",
            title="Test statistics",
            template_name="stats/_section.html",
            get_context=lambda *, profile_user, viewer: (
                None if profile_user.username == "bob" else {"games": 7}
            ),
        )
    )
    try:
        html = client.get("/u/alice/").content.decode()
        assert 'id="profile-test-stats"' in html
        assert "Test statistics" in html
        assert "Games played: 7 by alice" in html
        html = client.get("/u/bob/").content.decode()
        assert "Test statistics" not in html
    finally:
        profile_section_unregister("test-stats")


def test_edit_page_shows_current_values(alice_client, user):
    user.display_name = "Al"
    user.country = "NZ"
    user.time_zone = "Pacific/Auckland"
    user.save()
    response = alice_client.get(reverse("accounts:edit"))
    assert response.status_code == 200
    html = response.content.decode()
    assert 'value="Al"' in html
    assert '<option value="NZ" selected>' in html
    assert '<option value="Pacific/Auckland" selected>' in html
    assert 'enctype="multipart/form-data"' in html
    for field in ("display_name", "country", "time_zone", "bio", "avatar"):
        assert f'for="id_{field}"' in html, field


def test_edit_saves_the_profile(alice_client, user):
    response = alice_client.post(reverse("accounts:edit"), edit_data())
    assert response.status_code == 302
    assert response.url == user.get_absolute_url()
    user.refresh_from_db()
    assert user.display_name == "Alice Liddell"
    assert user.country == "FR"
    assert user.time_zone == "Europe/Paris"
    assert user.bio == "Gin player since 1999.\nLikes Oklahoma."
    page = alice_client.get(response.url)
    assert b"Your profile has been saved." in page.content


def test_edit_can_clear_optional_fields(alice_client, user):
    alice_client.post(reverse("accounts:edit"), edit_data())
    response = alice_client.post(
        reverse("accounts:edit"), edit_data(display_name="", country="", bio="")
    )
    assert response.status_code == 302
    user.refresh_from_db()
    assert (user.display_name, user.country, user.bio) == ("", "", "")
    assert user.public_name == "alice"


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("country", "XX", "Select a valid choice"),
        ("country", "france", "Select a valid choice"),
        ("time_zone", "Mars/Olympus_Mons", "Select a valid choice"),
        ("time_zone", "", "This field is required."),
        ("display_name", "x" * 41, "at most 40 characters"),
        ("display_name", "evil\u202ename", "invisible control characters"),
        ("bio", "b" * 281, "at most 280 characters"),
        ("bio", "bell\x07", "invisible control characters"),
    ],
)
def test_edit_rejects_bad_values_and_saves_nothing(alice_client, user, field, value, message):
    before = User.objects.values().get(pk=user.pk)
    response = alice_client.post(reverse("accounts:edit"), edit_data(**{field: value}))
    assert response.status_code == 400
    assert message in response.content.decode()
    assert b'aria-invalid="true"' in response.content
    assert User.objects.values().get(pk=user.pk) == before


@pytest.mark.parametrize(("name", "message"), [
    ("bob2", "That is another player's username"),
    ("@BOB2", "That is another player's username"),
    # each of these was saved and showed as "bob2" (an outside audit)
    ("b\u043eb2", "That looks like another player's username"),  # a Cyrillic "о"
    ("\u0412\u041e\u04122", "That looks like another player's username"),  # "ВОВ2"
    ("bob2\u200b", "Remove the invisible characters"),  # a zero-width space
    ("b\u00adob2", "Remove the invisible characters"),  # a soft hyphen
    ("Computer (Easy)", "kept for the site's computer players"),
    ("Administrator", "That name is kept for the site"),  # a third outside check
    ("\u0391dmin", "That name is kept for the site"),  # a Greek capital alpha
    ("\u0421\u043emputer", "kept for the site's computer players"),  # "Сomputer", Cyrillic "С", "о"
    # a second outside check: Greek capitals read as the capitals they look like (eta is H,
    # nu N), and characters that show nothing that are not format characters
    ("\u0392\u039f\u03922", "That looks like another player's username"),  # Greek "ΒΟΒ2"
    ("b\u034fob2", "Remove the invisible characters"),  # combining grapheme joiner
    ("bob2\ufe0f", "Remove the invisible characters"),  # a variation selector after a letter
    ("bob2\u3164", "Remove the invisible characters"),  # a Hangul filler
    # a third: a small "l" among capitals shows as a capital "I", and a Cyrillic soft sign
    # as a "b" ("ALlCE" was saved and showed as ALICE)
    ("BOB2", "That is another player's username"),
    ("\u042cOB2", "That looks like another player's username"),  # "ЬOB2"
    ("\u042cob2", "That looks like another player's username"),  # "Ьob2"
])
def test_a_display_name_may_not_pass_for_another_player(alice_client, user, make_user, name,
                                                        message):
    make_user("bob2")
    before = User.objects.values().get(pk=user.pk)
    response = alice_client.post(reverse("accounts:edit"), edit_data(display_name=name))
    assert response.status_code == 400
    assert message in html.unescape(response.content.decode())
    assert User.objects.values().get(pk=user.pk) == before


def test_a_small_l_among_capitals_passes_for_a_capital_i(alice_client, user, make_user):
    make_user("ali2")
    response = alice_client.post(reverse("accounts:edit"), edit_data(display_name="ALl2"))
    assert response.status_code == 400
    assert "That looks like another player's username" in html.unescape(
        response.content.decode())
    # "Al" (one letter beside it) is a name of its own, even beside an "ai"
    make_user("ai")
    response = alice_client.post(reverse("accounts:edit"), edit_data(display_name="Al"))
    assert response.status_code == 302


def test_a_display_name_kept_as_it_was_is_not_judged_again(alice_client, user, make_user):
    """A stricter rule (accents read as the letters they are on: migration accounts 0007)
    found "Zoë" too like a username "zoe" made later: its player, saving only their country,
    was refused "Another player...". A name kept as it was is not judged again; changed, it
    is."""
    User.objects.filter(pk=user.pk).update(display_name="Zo\u00eb")
    make_user("zoe")
    user.refresh_from_db()
    response = alice_client.post(reverse("accounts:edit"),
                                 edit_data(display_name="Zo\u00eb", country="DE"))
    assert response.status_code == 302, response.content.decode()[:500]
    user.refresh_from_db()
    assert (user.display_name, user.country) == ("Zo\u00eb", "DE")
    response = alice_client.post(reverse("accounts:edit"), edit_data(display_name="Z\u00f6e"))
    assert response.status_code == 400


@pytest.mark.parametrize("name", ["Bobby", "Mehr\u200cdad", "\U0001F468\u200d\U0001F469 fam",
                                  "\u2764\ufe0f Hearts",  # an emoji's variation selector
                                  "\u0411\u043e\u0440\u0438\u0441"])  # "Борис"
def test_names_of_other_scripts_and_joiners_are_kept(alice_client, user, make_user, name):
    make_user("bob2")
    response = alice_client.post(reverse("accounts:edit"), edit_data(display_name=name))
    assert response.status_code == 302, response.content.decode()[:500]
    user.refresh_from_db()
    assert user.display_name == name


def test_service_rejects_what_the_form_would(user):
    from django.core.exceptions import ValidationError

    from accounts.services import profile_update

    before = User.objects.values().get(pk=user.pk)
    with pytest.raises(ValidationError) as info:
        profile_update(
            user=user, display_name="ok", country="ZZ", bio="", time_zone="Nowhere/City"
        )
    assert set(info.value.message_dict) == {"country", "time_zone"}
    assert User.objects.values().get(pk=user.pk) == before


def test_admin_edits_profiles_with_the_same_choices(client, make_user, user):
    admin = make_user(username="root", is_staff=True, is_superuser=True)
    client.force_login(admin)
    response = client.get(reverse("admin:accounts_user_change", args=[user.pk]))
    assert response.status_code == 200
    html = response.content.decode()
    assert '<option value="Europe/Paris">' in html
    assert '<option value="FR">France</option>' in html


def test_a_display_name_cannot_be_another_players_username_or_the_computers(
        alice_client, user, make_user):
    """Carol named herself "alice": her messages then read "New message from alice" (seen
    from outside). Another account's username (any case, with or without @) and the computer
    players' names are refused, with the form's error, and nothing is saved."""
    make_user(username="bobby")
    for name in ("bobby", "BOBBY", "@Bobby", "Computer (Expert)", "computer"):
        response = alice_client.post(reverse("accounts:edit"), edit_data(display_name=name))
        assert response.status_code == 400, name
        assert "display_name" in response.context["form"].errors, name
        user.refresh_from_db()
        assert user.display_name != name
    # your own username, in any case, is yours
    ok = alice_client.post(reverse("accounts:edit"),
                           edit_data(display_name=user.username.upper()))
    assert ok.status_code == 302
