"""Avatar uploads: only real pictures, at most 2 MB, stored as a fresh 256x256 WebP;
nothing is saved when the upload is refused; the generated default otherwise."""
import base64
import io

import pytest
from django.contrib.auth import get_user_model
from django.template import Context, Template
from django.urls import reverse
from PIL import Image

from accounts.avatars import (
    AVATAR_SIZE,
    MAX_AVATAR_BYTES,
    PALETTE,
    default_avatar_colour,
    default_avatar_svg,
    initials,
)
from tests.support.accounts import image_bytes, media_files, upload

pytestmark = pytest.mark.django_db

User = get_user_model()


def post_edit(client, **fields):
    data = {"display_name": "New Name", "country": "IT", "time_zone": "Europe/Rome", "bio": "x"}
    data.update(fields)
    return client.post(reverse("accounts:edit"), data)


def stored_image(user):
    user.refresh_from_db()
    with user.avatar.open("rb") as fh:
        data = fh.read()
    return data, Image.open(io.BytesIO(data))


@pytest.mark.parametrize(
    ("fmt", "mode", "name"),
    [
        ("PNG", "RGB", "a.png"),
        ("JPEG", "RGB", "b.jpg"),
        ("WEBP", "RGB", "c.webp"),
        ("GIF", "P", "d.gif"),
        ("PNG", "RGBA", "e.png"),
    ],
)
def test_valid_picture_is_stored_square_and_resized(
    alice_client, user, media_root, fmt, mode, name
):
    color = (10, 120, 200, 128) if mode == "RGBA" else (10, 120, 200)
    if mode == "P":
        color = 3
    data = image_bytes(fmt, size=(900, 500), color=color, mode=mode)
    response = post_edit(alice_client, avatar=upload(data, name=name))
    assert response.status_code == 302, response.content.decode()[:2000]
    stored, image = stored_image(user)
    assert image.format == "WEBP"
    assert image.size == (AVATAR_SIZE, AVATAR_SIZE)
    assert user.avatar.name.startswith(f"avatars/{user.pk}/")
    assert user.avatar.name.endswith(".webp")
    assert media_files(media_root) == [user.avatar.name]
    # The other fields of the same form were saved with it.
    assert (user.display_name, user.country, user.time_zone) == ("New Name", "IT", "Europe/Rome")
    # The profile and the nav show the uploaded picture.
    html = alice_client.get(user.get_absolute_url()).content.decode()
    assert user.avatar.url in html


def test_picture_is_centre_cropped(alice_client, user, media_root):
    # A wide picture: red left third, green middle third, blue right third.
    img = Image.new("RGB", (600, 200), (0, 200, 0))
    img.paste((200, 0, 0), (0, 0, 200, 200))
    img.paste((0, 0, 200), (400, 0, 600, 200))
    buffer = io.BytesIO()
    img.save(buffer, format="PNG")
    assert post_edit(alice_client, avatar=upload(buffer.getvalue())).status_code == 302
    _, image = stored_image(user)
    r, g, b = image.convert("RGB").getpixel((AVATAR_SIZE // 2, AVATAR_SIZE // 2))
    assert g > 150 and r < 60 and b < 60
    for x in (3, AVATAR_SIZE - 4):
        r, g, b = image.convert("RGB").getpixel((x, AVATAR_SIZE // 2))
        assert g > 150, "the square is the middle third: no red or blue edge"


def test_metadata_and_trailing_payload_do_not_survive(alice_client, user, media_root):
    payload = b"<?php system($_GET['c']); ?>"
    exif = Image.Exif()
    exif[0x010E] = "secret description"  # ImageDescription
    data = image_bytes("JPEG", size=(300, 300), exif=exif.tobytes()) + payload
    assert post_edit(alice_client, avatar=upload(data, "x.jpg", "image/jpeg")).status_code == 302
    stored, image = stored_image(user)
    assert payload not in stored
    assert b"secret description" not in stored
    assert not image.getexif()


def assert_nothing_saved(user, before, media_root):
    assert User.objects.values().get(pk=user.pk) == before
    assert media_files(media_root) == []


@pytest.mark.parametrize(
    ("data", "name", "content_type"),
    [
        (b"just some text, not a picture\n" * 10, "notes.png", "image/png"),
        (b"%PDF-1.4\n%fake pdf\n" * 20, "doc.pdf", "application/pdf"),
        (b"<svg xmlns='http://www.w3.org/2000/svg'><script>alert(1)</script></svg>",
         "evil.svg", "image/svg+xml"),
        (b"\x89PNG\r\n\x1a\n" + b"\x00" * 200, "broken.png", "image/png"),
    ],
    ids=["text", "pdf", "svg", "truncated-png"],
)
def test_non_image_is_refused_and_nothing_is_saved(
    alice_client, user, media_root, data, name, content_type
):
    before = User.objects.values().get(pk=user.pk)
    response = post_edit(alice_client, avatar=upload(data, name, content_type))
    assert response.status_code == 400
    html = response.content.decode()
    assert "This file is not a picture we can use." in html
    assert "Upload a JPEG, PNG, WebP or GIF image." in html
    assert 'id="id_avatar_error"' in html
    # Not even the valid text fields of the same form were saved.
    assert_nothing_saved(user, before, media_root)


def test_other_image_formats_are_refused(alice_client, user, media_root):
    before = User.objects.values().get(pk=user.pk)
    for fmt, name in (("BMP", "a.bmp"), ("TIFF", "a.tiff"), ("ICO", "a.ico")):
        data = image_bytes(fmt, size=(64, 64))
        response = post_edit(alice_client, avatar=upload(data, name, "image/png"))
        assert response.status_code == 400, fmt
        assert b"This file is not a picture we can use." in response.content
    assert_nothing_saved(user, before, media_root)


def test_oversized_file_is_refused_and_nothing_is_saved(alice_client, user, media_root):
    before = User.objects.values().get(pk=user.pk)
    # A real PNG padded past the limit (PNG readers ignore data after IEND).
    data = image_bytes("PNG", size=(64, 64))
    data += b"\x00" * (MAX_AVATAR_BYTES + 1 - len(data))
    assert len(data) == MAX_AVATAR_BYTES + 1
    response = post_edit(alice_client, avatar=upload(data))
    assert response.status_code == 400
    assert b"The picture is too large (2.0 MB). The limit is 2 MB." in response.content
    assert_nothing_saved(user, before, media_root)


def test_decompression_bomb_is_refused(alice_client, user, media_root):
    before = User.objects.values().get(pk=user.pk)
    data = image_bytes("PNG", size=(8000, 4000), color=1, mode="1")
    assert len(data) < MAX_AVATAR_BYTES
    response = post_edit(alice_client, avatar=upload(data))
    assert response.status_code == 400
    assert b"too many pixels" in response.content
    assert_nothing_saved(user, before, media_root)
    # one past what Pillow even opens (20000 x 20000): the same words, not "not a picture"
    huge = image_bytes("PNG", size=(20000, 20000), color=1, mode="1")
    assert len(huge) < MAX_AVATAR_BYTES
    response = post_edit(alice_client, avatar=upload(huge))
    assert response.status_code == 400
    assert b"too many pixels" in response.content and b"not a picture" not in response.content
    assert_nothing_saved(user, before, media_root)


def test_empty_file_is_refused(alice_client, user, media_root):
    before = User.objects.values().get(pk=user.pk)
    response = post_edit(alice_client, avatar=upload(b""))
    assert response.status_code == 400
    assert b"empty" in response.content
    assert_nothing_saved(user, before, media_root)


def test_replacing_deletes_the_old_file(
    alice_client, user, media_root, django_capture_on_commit_callbacks
):
    post_edit(alice_client, avatar=upload(image_bytes("PNG", color=(255, 0, 0))))
    user.refresh_from_db()
    first = user.avatar.name
    with django_capture_on_commit_callbacks(execute=True):
        post_edit(alice_client, avatar=upload(image_bytes("PNG", color=(0, 0, 255))))
    user.refresh_from_db()
    assert user.avatar.name != first
    assert media_files(media_root) == [user.avatar.name]


def test_refused_replacement_keeps_the_old_picture(alice_client, user, media_root):
    post_edit(alice_client, avatar=upload(image_bytes("PNG")))
    user.refresh_from_db()
    kept = user.avatar.name
    response = post_edit(alice_client, avatar=upload(b"not an image", "x.png"))
    assert response.status_code == 400
    user.refresh_from_db()
    assert user.avatar.name == kept
    assert media_files(media_root) == [kept]


def test_removing_goes_back_to_the_default(
    alice_client, user, media_root, django_capture_on_commit_callbacks
):
    post_edit(alice_client, avatar=upload(image_bytes("PNG")))
    page = alice_client.get(reverse("accounts:edit")).content.decode()
    assert 'name="remove_avatar"' in page
    with django_capture_on_commit_callbacks(execute=True):
        response = post_edit(alice_client, remove_avatar="on")
    assert response.status_code == 302
    user.refresh_from_db()
    assert not user.avatar
    assert media_files(media_root) == []
    html = alice_client.get(user.get_absolute_url()).content.decode()
    assert "data:image/svg+xml;base64," in html


def test_upload_and_remove_together_is_refused(alice_client, user, media_root):
    before = User.objects.values().get(pk=user.pk)
    response = post_edit(alice_client, avatar=upload(image_bytes("PNG")), remove_avatar="on")
    assert response.status_code == 400
    assert b"not both" in response.content
    assert_nothing_saved(user, before, media_root)


def test_a_failing_database_write_leaves_no_file(user, media_root, monkeypatch):
    from accounts import services

    def broken_save(self, *args, **kwargs):
        raise RuntimeError("database went away")

    monkeypatch.setattr(User, "save", broken_save)
    with pytest.raises(RuntimeError):
        services.profile_update(
            user=user,
            display_name="x",
            country="",
            bio="",
            time_zone="UTC",
            avatar=upload(image_bytes("PNG")),
        )
    assert media_files(media_root) == []


# --- The generated default and the template tag ------------------------------------------


def _luminance(hex_colour: str) -> float:
    channels = [int(hex_colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


@pytest.mark.parametrize("colour", PALETTE)
def test_default_avatar_colours_contrast_with_white_text(colour):
    assert (1.05) / (_luminance(colour) + 0.05) >= 4.5


def test_default_avatar_is_stable_and_escaped():
    assert default_avatar_colour("alice") == default_avatar_colour("ALICE")
    assert initials("Ada Lovelace") == "AL"
    assert initials("bob") == "B"
    assert initials("  ") == "?"
    svg = default_avatar_svg(name="<x> &y", username="z")
    assert "<x>" not in svg and "&y" not in svg
    assert "&amp;" in svg or ">?<" in svg


def test_avatar_tag_renders_default_and_upload(user, media_root):
    template = Template("{% load avatars %}{% avatar u 48 %}|{% avatar u 64 alt='Me' %}")
    html = template.render(Context({"u": user}))
    first, second = html.split("|")
    assert first.startswith('<img class="avatar" src="data:image/svg+xml;base64,')
    assert 'width="48" height="48"' in first and 'alt=""' in first
    assert 'alt="Me"' in second
    encoded = first.split("base64,")[1].split('"')[0]
    assert ">A<" in base64.b64decode(encoded).decode()

    from accounts.services import profile_update

    profile_update(
        user=user, display_name="", country="", bio="", time_zone="UTC",
        avatar=upload(image_bytes("PNG")),
    )
    html = template.render(Context({"u": user}))
    assert f'src="{user.avatar.url}"' in html
    assert user.avatar.url.startswith("/media/avatars/")


def test_avatar_tag_handles_anonymous_and_bad_size():
    from django.contrib.auth.models import AnonymousUser

    html = Template("{% load avatars %}{% avatar u 'big' %}").render(
        Context({"u": AnonymousUser()})
    )
    assert 'width="40"' in html and "data:image/svg+xml" in html
