"""``{% load moments %}``: ``{{ when|moment }}``, a moment as the site writes it
(``core.moments``)."""
from __future__ import annotations

from django import template

from core.moments import moment as _moment

register = template.Library()


@register.filter
def moment(value):
    return _moment(value) if value else ""
