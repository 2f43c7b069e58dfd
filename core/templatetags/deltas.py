"""``{% load deltas %}``: ``{{ change|rating_delta }}``, a rating change as "+12", "−9" (a true
minus) or "±0" in its colour class: the record page and the archive write it alike."""
from __future__ import annotations

from django import template
from django.utils.html import format_html

register = template.Library()


def signed(change: int) -> str:
    """A change as plain text: "+12", "−9" (a true minus), "±0" (the filter below, and the
    rating chart's tooltips)."""
    return f"+{change}" if change > 0 else f"\u2212{-change}" if change < 0 else "±0"


@register.filter
def rating_delta(change):
    if change is None or change == "":
        return ""
    change = int(change)
    kind = "rating-delta-up" if change > 0 else "rating-delta-down" if change < 0 \
        else "rating-delta"
    return format_html('<span class="{}">{}</span>', kind, signed(change))
