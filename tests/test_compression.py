"""Pages and JSON answers go out gzip-compressed to a client that accepts it; streams,
images and static files are left as they are (core.middleware.CompressPages)."""
from __future__ import annotations

import gzip

import pytest

from tests.support.records import finished_game

pytestmark = pytest.mark.django_db
GZIP = {"HTTP_ACCEPT_ENCODING": "gzip, deflate, br"}


def test_a_game_page_is_compressed_and_reads_the_same(client, make_user):
    game = finished_game([make_user("ann"), make_user("ben")])
    url = f"/games/{game.pk}/"
    plain = client.get(url)
    packed = client.get(url, **GZIP)
    assert plain.status_code == packed.status_code == 200
    assert "Content-Encoding" not in plain
    assert packed["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in packed["Vary"]
    assert int(packed["Content-Length"]) == len(packed.content) < len(plain.content) / 3
    # (the CSRF token and the nonce differ between two answers; the rest is the page)
    page = gzip.decompress(packed.content).decode()
    assert page.startswith("<!doctype html>") and page.rstrip().endswith("</html>")
    assert abs(len(page) - len(plain.content.decode())) < 200


def test_json_answers_are_compressed(client, make_user):
    game = finished_game([make_user("ann"), make_user("ben")])
    packed = client.get(f"/games/{game.pk}/record.json", **GZIP)
    assert packed["Content-Encoding"] == "gzip"
    assert gzip.decompress(packed.content) == client.get(f"/games/{game.pk}/record.json").content


def test_streams_are_left_as_they_are(client, make_user):
    """The records export (and the bot API's event streams) go out line by line."""
    ann = make_user("ann")
    finished_game([ann, make_user("ben")])
    response = client.get(f"/api/games/export/{ann.username}/", **GZIP)
    assert response.streaming and "Content-Encoding" not in response
    assert b"".join(response.streaming_content).startswith(b"{")


def test_a_client_that_does_not_accept_gzip_gets_plain_pages(client):
    response = client.get("/rules/", HTTP_ACCEPT_ENCODING="identity")
    assert "Content-Encoding" not in response and b"</html>" in response.content


def test_pictures_are_left_as_they_are(rf):
    """An image is compressed already: even whole (not streamed), it goes out untouched."""
    from django.http import HttpResponse

    from core.middleware import CompressPages
    from tests.support.accounts import image_bytes

    picture = image_bytes("BMP")  # (a format gzip would shrink: the type alone decides)
    middleware = CompressPages(lambda request: HttpResponse(picture, content_type="image/bmp"))
    response = middleware(rf.get("/media/avatars/a.bmp", **GZIP))
    assert "Content-Encoding" not in response and response.content == picture
