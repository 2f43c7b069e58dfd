"""The time zones a player can pick: the IANA zones of the world's regions, grouped by
region for the <select>, plus UTC. Legacy aliases (``US/Eastern``, ``Etc/GMT+3``...) and
oddities (``Factory``, ``localtime``) are left out."""
from __future__ import annotations

import zoneinfo
from datetime import datetime, tzinfo
from functools import lru_cache

DEFAULT_TIME_ZONE = "UTC"
REGIONS = (
    "Africa",
    "America",
    "Antarctica",
    "Arctic",
    "Asia",
    "Atlantic",
    "Australia",
    "Europe",
    "Indian",
    "Pacific",
)


@lru_cache(maxsize=1)
def time_zone_names() -> frozenset[str]:
    """Every selectable zone name."""
    names = {
        name
        for name in zoneinfo.available_timezones()
        if name.split("/", 1)[0] in REGIONS and "/" in name
    }
    names.add(DEFAULT_TIME_ZONE)
    return frozenset(names)


def _label(name: str) -> str:
    # "America/Argentina/Buenos_Aires" → "Argentina / Buenos Aires"
    return name.split("/", 1)[1].replace("_", " ").replace("/", " / ")


@lru_cache(maxsize=1)
def time_zone_choices() -> list:
    """Grouped choices for a <select>.

    ``[("UTC", "UTC ..."), ("Africa", [("Africa/Abidjan", "Abidjan"), ...]), ...]``
    """
    names = time_zone_names()
    choices: list = [(DEFAULT_TIME_ZONE, "UTC (Coordinated Universal Time)")]
    for region in REGIONS:
        zones = sorted(
            (name for name in names if name.startswith(region + "/")),
            key=lambda name: _label(name).casefold(),
        )
        choices.append((region, [(name, _label(name)) for name in zones]))
    return choices


def is_valid_time_zone(name: str) -> bool:
    return name in time_zone_names()


def get_zone(name: str) -> tzinfo:
    """The zone for a stored name, falling back to UTC for anything unknown."""
    try:
        return zoneinfo.ZoneInfo(name if is_valid_time_zone(name) else DEFAULT_TIME_ZONE)
    except zoneinfo.ZoneInfoNotFoundError:  # pragma: no cover - system tz data missing
        return zoneinfo.ZoneInfo(DEFAULT_TIME_ZONE)


def local_now(name: str, *, now: datetime | None = None) -> datetime:
    """The current time in the named zone."""
    from django.utils import timezone

    return (now or timezone.now()).astimezone(get_zone(name))
