"""``{% load names %}``: ``{{ name|breakable }}``, a player's name that a narrow column may
wrap after ``_``, ``.`` or ``-`` (and at spaces) instead of in the middle of a word."""
import re

from django import template
from django.utils.html import escape
from django.utils.safestring import mark_safe

register = template.Library()

_AFTER = re.compile(r"([_.\-])(?=.)")


@register.filter
def breakable(name) -> str:
    return mark_safe(_AFTER.sub(r"\1<wbr>", escape(str(name))))
