"""``{% load avatars %}`` then ``{% avatar user 48 %}`` renders a user's round picture.

The generated default (initials on a colour derived from the username) is used when the
user has not uploaded one. Options: ``{% avatar user 48 alt="..." css_class="..." %}``;
``alt`` defaults to empty because the name is normally written next to the picture.
``{% avatar_url user %}`` gives just the URL.
"""
from django import template
from django.utils.html import format_html

from accounts.selectors import user_avatar_url

register = template.Library()


@register.simple_tag
def avatar(user, size=40, alt="", css_class=""):
    try:
        size = max(16, min(int(size), 512))
    except (TypeError, ValueError):
        size = 40
    classes = "avatar" + (f" {css_class}" if css_class else "")
    return format_html(
        '<img class="{}" src="{}" alt="{}" width="{}" height="{}" loading="lazy" '
        'decoding="async">',
        classes,
        user_avatar_url(user=user),
        alt,
        size,
        size,
    )


@register.simple_tag(name="avatar_url")
def avatar_url_tag(user):
    return user_avatar_url(user=user)
