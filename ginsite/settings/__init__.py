"""Settings package. ``base`` reads everything from the environment; ``test`` tunes it for
the test suite. ``DJANGO_SETTINGS_MODULE=ginsite.settings`` means the base settings."""
from .base import *  # noqa: F401,F403
