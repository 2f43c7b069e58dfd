"""The ``<id:...>`` path converter for database ids in URLs.

Django's ``<int:...>`` takes any number of digits, so ``/tables/99999999999999999999999/``
reached the database with an id past its integer columns (SQLite raised OverflowError,
PostgreSQL "out of range"): a 500 where a missing row answers 404. ``<id:...>`` takes 1 to
18 digits, every one of them within a 64-bit column, so such a URL is not found at all."""
from __future__ import annotations

from django.urls import register_converter
from django.urls.converters import get_converters

NAME = "id"


class IdConverter:
    regex = "[0-9]{1,18}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int | str) -> str:
        return str(int(value))


def register_id_converter() -> None:
    """Make ``<id:...>`` usable in routes (``core.apps.CoreConfig.ready``: once a process)."""
    if NAME not in get_converters():
        register_converter(IdConverter, NAME)
