"""``{% load countries %}``: ``{{ code|country_name }}`` and ``{{ code|country_flag }}``."""
from django import template

from accounts import countries

register = template.Library()


@register.filter
def country_name(code):
    return countries.country_name(code)


@register.filter
def country_flag(code):
    return countries.flag(code)
