"""Times on the site in the viewer's time zone (accounts/middleware.py): the zone of their
settings when signed in, else the device's zone from site.js's ``tz`` cookie, else UTC; a new
account starts in the device's zone."""
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import User
from tests.support.accounts import PASSWORD
from tests.support.records import finished_game

# 20:30 UTC on 4 Dec is 05:30 on 5 Dec in Tokyo
AT = datetime(2026, 12, 4, 20, 30, tzinfo=UTC)


@pytest.fixture
def game_at(make_user):
    player = make_user("tz_player")
    return player, finished_game([player, None], bot_level=1, at=AT)


@pytest.mark.django_db
def test_a_player_sees_times_in_the_zone_of_their_settings(game_at, client):
    player, game = game_at
    client.force_login(player)
    client.cookies["tz"] = "Europe/Paris"  # the settings win over the device
    assert "4 Dec 2026, 20:30" in client.get("/games/").content.decode()
    player.time_zone = "Asia/Tokyo"
    player.save(update_fields=["time_zone"])
    page = client.get("/games/").content.decode()
    assert "5 Dec 2026, 05:30" in page and "4 Dec 2026, 20:30" not in page
    assert "5 Dec 2026, 05:30" in client.get(game.get_absolute_url()).content.decode()


@pytest.mark.django_db
def test_the_archive_s_days_are_the_player_s_days(game_at, client):
    player, game = game_at
    player.time_zone = "Asia/Tokyo"
    player.save(update_fields=["time_zone"])
    client.force_login(player)
    on = client.get("/games/", {"date_from": "2026-12-05", "date_to": "2026-12-05"})
    assert game.get_absolute_url() in on.content.decode()
    before = client.get("/games/", {"date_to": "2026-12-04"})
    assert game.get_absolute_url() not in before.content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize("cookie, zone", [
    ("Asia/Tokyo", "Asia/Tokyo"),
    ("America/Argentina/Buenos_Aires", "America/Argentina/Buenos_Aires"),
    ("Mars/Olympus_Mons", "UTC"),  # not a zone
    ("", "UTC"),
])
def test_a_visitor_sees_times_in_the_device_s_zone(make_user, cookie, zone):
    from django.utils import timezone

    from tests.support.tournaments import create_tournament

    starts = (timezone.now() + timedelta(days=2)).replace(hour=20, minute=30, second=0,
                                                          microsecond=0)
    create_tournament(make_user("tz_staff", is_staff=True), starts_at=starts)
    visitor = Client()
    if cookie:
        visitor.cookies["tz"] = cookie
    local = starts.astimezone(ZoneInfo(zone))
    shown = f"{local:%a} {local.day} {local:%b}, {local:%H:%M} {local.tzname()}"
    assert shown in visitor.get("/tournaments/").content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize("cookie, zone", [("Asia/Tokyo", "Asia/Tokyo"), ("Nowhere/City", "UTC"),
                                          (None, "UTC")])
def test_a_new_account_starts_in_the_device_s_zone(client, cookie, zone):
    if cookie:
        client.cookies["tz"] = cookie
    response = client.post(reverse("account_signup"), {
        "username": "tz_newcomer", "email": "tz@example.com",
        "password1": PASSWORD, "password2": PASSWORD})
    assert response.status_code == 302
    assert User.objects.get(username="tz_newcomer").time_zone == zone


@pytest.mark.django_db
def test_an_async_view_runs_in_the_viewer_s_zone_too(make_user):
    """The bot API's views are async: the middleware reads the user there with ``auser``."""
    import asyncio

    from django.http import HttpResponse
    from django.test import AsyncRequestFactory
    from django.utils import timezone

    from accounts.middleware import viewer_time_zone_middleware

    user = make_user("tz_async", time_zone="Asia/Tokyo")
    seen = []

    async def view(request):
        seen.append(str(timezone.get_current_timezone()))
        return HttpResponse("ok")

    request = AsyncRequestFactory().get("/")

    async def auser():
        return user

    request.auser = auser
    asyncio.run(viewer_time_zone_middleware(view)(request))
    assert seen == ["Asia/Tokyo"]
    assert str(timezone.get_current_timezone()) == "UTC"  # deactivated after
