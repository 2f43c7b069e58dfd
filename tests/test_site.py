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


def _worker_heard(seconds_ago: float = 0) -> None:
    from datetime import timedelta

    from django.utils import timezone

    from games.models import Heartbeat

    Heartbeat.objects.update_or_create(
        name="sweep", defaults={"at": timezone.now() - timedelta(seconds=seconds_ago)}
    )


# Transactional: the probes run in threads of their own, which must see the heartbeat row.
@pytest.mark.django_db(transaction=True)
def test_healthz_all_up(client):
    _worker_heard()
    response = client.get(reverse("healthz"))
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["status"] == "ok"
    assert set(body["checks"]) == {"database", "cache", "channel_layer", "broker", "worker"}


@pytest.mark.django_db(transaction=True)
def test_healthz_reports_a_silent_worker_but_still_serves(client):
    _worker_heard(seconds_ago=120)
    response = client.get(reverse("healthz"))
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "degraded"
    assert body["failed"] == ["worker"]
    assert "120 s" in body["checks"]["worker"]["error"]


@pytest.mark.django_db(transaction=True)
def test_healthz_names_an_unreachable_broker(client, settings):
    _worker_heard()
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
