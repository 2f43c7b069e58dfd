"""The settings of an app with their defaults: each tunable number is written once, with its
reason, in the app's ``conf.py``, and a ``<PREFIX>_<NAME>`` Django setting overrides it.
Values are read when asked for, so a test's ``settings`` override applies at once.

>>> from django.conf import settings
>>> games = Settings("DOCTEST", {"TURN": 30})
>>> games.get("TURN")
30
>>> settings.DOCTEST_TURN = 15
>>> games.get("TURN")
15
>>> del settings.DOCTEST_TURN
>>> games.get("TURNS")
Traceback (most recent call last):
...
KeyError: 'DOCTEST has no setting TURNS (known: TURN)'
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.conf import settings


class Settings:
    """The settings ``<prefix>_<NAME>`` of one app, each with its default in ``defaults``.
    Asking for a name without a default is a programming error (``KeyError``), so a typo
    never reads a setting nobody documented."""

    def __init__(self, prefix: str, defaults: Mapping[str, Any]):
        self.prefix = prefix
        self.defaults = defaults

    def get(self, name: str) -> Any:
        """The value of ``<prefix>_<name>`` from settings, else its default."""
        try:
            default = self.defaults[name]
        except KeyError:
            known = ", ".join(sorted(self.defaults))
            raise KeyError(f"{self.prefix} has no setting {name} (known: {known})") from None
        return getattr(settings, f"{self.prefix}_{name}", default)
