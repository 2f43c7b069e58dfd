"""Validators for profile fields, shared by the model, the forms and the services."""
from __future__ import annotations

from django.core.exceptions import ValidationError

from core.text import CONTROLS_MESSAGE, HIDDEN_MESSAGE, has_controls, has_hidden

from .countries import COUNTRIES
from .timezones import is_valid_time_zone


def validate_country(value: str) -> None:
    if value and value not in COUNTRIES:
        raise ValidationError("Choose a country from the list.", code="invalid_country")


def validate_time_zone(value: str) -> None:
    if not is_valid_time_zone(value):
        raise ValidationError("Choose a time zone from the list.", code="invalid_time_zone")


def validate_plain_text(value: str, *, allow_newlines: bool = False) -> None:
    """Reject control characters (and bidi overrides) in user-visible text."""
    if has_controls(value, allow="\n\r" if allow_newlines else ""):
        raise ValidationError(CONTROLS_MESSAGE, code="control_characters")


def validate_display_name(value: str) -> None:
    validate_plain_text(value)
    if has_hidden(value):
        raise ValidationError(HIDDEN_MESSAGE, code="hidden_characters")


def validate_bio(value: str) -> None:
    validate_plain_text(value, allow_newlines=True)
