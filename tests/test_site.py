import pytest
from django.urls import reverse


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["home", "games:lobby", "leaderboards:index"])
def test_public_pages_render(client, name):
    response = client.get(reverse(name))
    assert response.status_code == 200
    assert b"Skip to content" in response.content


@pytest.mark.django_db
def test_unknown_page_uses_site_404(client):
    response = client.get("/no-such-page/")
    assert response.status_code == 404
    assert b"Page not found" in response.content


@pytest.mark.django_db
def test_manifest_lists_installable_icons(client):
    data = client.get(reverse("manifest")).json()
    assert data["display"] == "standalone"
    sizes = {icon["sizes"] for icon in data["icons"]}
    assert {"192x192", "512x512"} <= sizes


@pytest.mark.django_db
def test_healthz_all_up(client):
    response = client.get(reverse("healthz"))
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["status"] == "ok"
    assert set(body["checks"]) == {"database", "cache", "channel_layer", "broker"}


@pytest.mark.django_db
def test_healthz_names_an_unreachable_broker(client, settings):
    # Port 1 on loopback is closed: a real connection attempt that fails, no mocks.
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"
    settings.CELERY_BROKER_TRANSPORT_OPTIONS = {}
    response = client.get(reverse("healthz"))
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unavailable"
    assert body["failed"] == ["broker"]
    assert body["checks"]["broker"]["ok"] is False
    assert body["checks"]["database"]["ok"] is True


@pytest.mark.django_db
def test_favicon_ico_points_at_the_svg_icon(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 301
    assert response["Location"].endswith("icons/favicon.svg")
