"""Validators for profile fields, shared by the model, the forms and the services."""
from __future__ import annotations

import unicodedata

from django.core.exceptions import ValidationError

from .countries import COUNTRIES
from .timezones import is_valid_time_zone

# Bidirectional overrides and isolates can make a name display as something else.
_BIDI_CONTROLS = {chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))}


def validate_country(value: str) -> None:
    if value and value not in COUNTRIES:
        raise ValidationError("Choose a country from the list.", code="invalid_country")


def validate_time_zone(value: str) -> None:
    if not is_valid_time_zone(value):
        raise ValidationError("Choose a time zone from the list.", code="invalid_time_zone")


def validate_plain_text(value: str, *, allow_newlines: bool = False) -> None:
    """Reject control characters (and bidi overrides) in user-visible text."""
    for char in value:
        if allow_newlines and char in "\n\r":
            continue
        if char in _BIDI_CONTROLS or unicodedata.category(char) == "Cc":
            raise ValidationError(
                "Remove the invisible control characters from this text.",
                code="control_characters",
            )


def validate_display_name(value: str) -> None:
    validate_plain_text(value)


def validate_bio(value: str) -> None:
    validate_plain_text(value, allow_newlines=True)
