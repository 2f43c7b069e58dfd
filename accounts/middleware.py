"""Times on the site in the viewer's time zone: the zone of their settings when signed in,
else the device's zone that ``site.js`` keeps in the ``tz`` cookie, else UTC. Templates,
``timezone.localtime`` and the archive's date filters all follow the zone activated here."""
from __future__ import annotations

from collections.abc import Callable
from inspect import iscoroutinefunction
from typing import Any

from django.http import HttpRequest
from django.utils import timezone
from django.utils.decorators import sync_and_async_middleware

from .timezones import DEFAULT_TIME_ZONE, get_zone, is_valid_time_zone

TZ_COOKIE = "tz"


def device_time_zone(request: HttpRequest) -> str | None:
    """The device's zone as ``site.js`` reported it, when it is one a player may pick."""
    name = request.COOKIES.get(TZ_COOKIE, "")
    return name if is_valid_time_zone(name) else None


def viewer_time_zone(request: HttpRequest, user: Any) -> str:
    if user is not None and user.is_authenticated:
        return str(user.time_zone)
    return device_time_zone(request) or DEFAULT_TIME_ZONE


@sync_and_async_middleware
def viewer_time_zone_middleware(get_response: Callable[[HttpRequest], Any]) -> Any:
    if iscoroutinefunction(get_response):
        async def middleware(request: HttpRequest) -> Any:
            timezone.activate(get_zone(viewer_time_zone(request, await request.auser())))
            try:
                return await get_response(request)
            finally:
                timezone.deactivate()
    else:
        def middleware(request: HttpRequest) -> Any:  # type: ignore[misc]
            timezone.activate(get_zone(viewer_time_zone(request, request.user)))
            try:
                return get_response(request)
            finally:
                timezone.deactivate()
    return middleware
