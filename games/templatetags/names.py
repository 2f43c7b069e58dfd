"""``{% load names %}``: ``{{ name|breakable }}``, a player's name that a narrow column may
wrap after ``_``, ``.`` or ``-`` (and at spaces) instead of in the middle of a word; and
``{{ mode|mode_name }}``, a mode's name ("Classic Gin") from its slug."""
import re

from django import template
from django.utils.html import escape
from django.utils.safestring import mark_safe

from games.models import Mode

register = template.Library()

_AFTER = re.compile(r"([_.\-])(?=.)")


@register.filter
def breakable(name) -> str:
    return mark_safe(_AFTER.sub(r"\1<wbr>", escape(str(name))))


@register.filter
def mode_name(mode) -> str:
    """"classic" -> "Classic Gin"; anything else as it is."""
    return Mode(mode).label if mode in Mode.values else str(mode)
