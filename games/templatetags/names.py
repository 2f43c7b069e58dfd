"""``{% load names %}``: ``{{ name|breakable }}``, a player's name that a narrow column may
wrap after ``_``, ``.`` or ``-`` (and at spaces) instead of in the middle of a word, and
within a run of more than 16 letters every 16 (a username may have 150 letters and no
space: a score sheet's column was then as wide as the name, and the page 2,000 px wide on a
phone)."""
import re

from django import template
from django.utils.html import escape
from django.utils.safestring import mark_safe

register = template.Library()

# a piece ends after "_", "." or "-", or after 16 characters without a space or one of them
# (a run of separators and spaces is a piece too)
_PIECE = re.compile(r"[^\s_.\-]{1,16}[_.\-]?|[\s_.\-]+")


@register.filter
def breakable(name) -> str:
    pieces = _PIECE.findall(str(name))  # (every character is in one piece)
    out = escape(pieces[0]) if pieces else ""
    for before, piece in zip(pieces, pieces[1:], strict=False):
        # (a space already lets the line break there)
        out += ("" if before[-1:].isspace() or piece[:1].isspace() else "<wbr>") + escape(piece)
    return mark_safe(out)
