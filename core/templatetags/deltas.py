"""``{% load deltas %}``: ``{{ change|rating_delta }}``, a rating change as "+12", "−9" (a true
minus) or "±0" in its colour class: the record page and the archive write it alike."""
from __future__ import annotations

from django import template
from django.utils.html import format_html

register = template.Library()


@register.filter
def rating_delta(change):
    if change is None or change == "":
        return ""
    change = int(change)
    if change > 0:
        return format_html('<span class="rating-delta-up">+{}</span>', change)
    if change < 0:
        return format_html('<span class="rating-delta-down">\u2212{}</span>', -change)
    return format_html('<span class="rating-delta">±0</span>')
