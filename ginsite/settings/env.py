"""Reading settings from the environment: the helpers every settings module uses."""
import math
import os

from django.core.exceptions import ImproperlyConfigured


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name)
    if not value:
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


def env_seconds_range(name: str, default: tuple[float, float]) -> tuple[float, float]:
    """``low,high`` seconds (``0.6,1.5``): two finite numbers, 0 <= low <= high <= 60.
    Anything else stops the process with a message naming the variable."""
    value = os.environ.get(name)
    if not value:
        return default
    parts = value.split(",")
    try:
        low, high = (float(p) for p in parts)
    except ValueError:
        low = high = math.nan
    if not (len(parts) == 2 and 0 <= low <= high <= 60):
        raise ImproperlyConfigured(
            f"{name} must be two numbers of seconds, low,high with 0 <= low <= high <= 60"
            f" (for example 0.6,1.5); it is {value!r}."
        )
    return low, high
