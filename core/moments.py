"""The site's one way to write a moment for people: "Sun 6 Dec, 07:50 UTC", in the active
time zone (the viewer's: ``accounts.middleware``). Pages use it through ``{% load moments %}``
(``{{ t.starts_at|moment }}``), messages built in Python through :func:`moment`."""
from __future__ import annotations

from datetime import datetime

from django.utils import dateformat, timezone

MOMENT_FORMAT = "D j M, H:i T"


def moment(at: datetime) -> str:
    return dateformat.format(timezone.localtime(at), MOMENT_FORMAT)
