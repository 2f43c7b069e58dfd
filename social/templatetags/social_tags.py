"""Template helpers of the social app."""
from __future__ import annotations

import re

from django import template
from django.utils import timezone
from django.utils.html import escape, format_html
from django.utils.safestring import mark_safe

from .. import selectors

register = template.Library()

# http(s) URLs only; stop at whitespace, quotes and angle brackets.
URL_RE = re.compile(r"https?://[^\s<>\"']+", re.IGNORECASE)
TRAILING = ".,!?;:)]}"


def _split_trailing(url: str) -> tuple[str, str]:
    tail = ""
    while url and url[-1] in TRAILING:
        # Keep a closing parenthesis that closes one opened inside the URL.
        if url[-1] == ")" and url.count("(") >= url.count(")"):
            break
        tail = url[-1] + tail
        url = url[:-1]
    return url, tail


@register.filter(is_safe=True)
def linkify(text) -> str:
    """Escape ``text`` and turn http(s) URLs into links that leak nothing.

    >>> str(linkify('<b>see https://example.com/a?b=1&c=2.</b>'))
    '&lt;b&gt;see <a href="https://example.com/a?b=1&amp;c=2" rel="nofollow noopener noreferrer" target="_blank">https://example.com/a?b=1&amp;c=2</a>.&lt;/b&gt;'
    """
    text = str(text or "")
    out = []
    pos = 0
    for match in URL_RE.finditer(text):
        url, tail = _split_trailing(match.group(0))
        if len(url) <= len("https://"):
            continue
        out.append(escape(text[pos:match.start()]))
        out.append(
            format_html(
                '<a href="{}" rel="nofollow noopener noreferrer" target="_blank">{}</a>', url, url
            )
        )
        out.append(escape(tail))
        pos = match.end()
    out.append(escape(text[pos:]))
    return mark_safe("".join(str(part) for part in out))


@register.simple_tag(takes_context=True)
def contact_requests_count(context) -> int:
    """The Contacts tab's count: the requests the viewer has still to answer."""
    request = context.get("request")
    user = getattr(request, "user", None)
    return selectors.requests_incoming_count(user) if user is not None else 0


@register.simple_tag
def presence_label(presence) -> str:
    """Human text for a :class:`social.presence.Presence`."""
    from django.utils.timesince import timesince

    if presence.state == "playing":
        return "Waiting at a table" if presence.waiting else "Playing at a table"
    if presence.state == "online":
        return "Online"
    if presence.last_seen:
        # as the live list says it (social.js): "0 minutes ago" read as a fault
        if (timezone.now() - presence.last_seen).total_seconds() < 90:
            return "Last seen just now"
        return f"Last seen {timesince(presence.last_seen)} ago"
    return "Offline"


@register.inclusion_tag("social/_profile_actions.html", takes_context=True)
def social_actions(context, person):
    """Buttons for a profile page: message, add contact (or its state), invite to a table,
    block/unblock (``social.profile.profile_actions``, as the profile page shows them).

    Usage: ``{% load social_tags %}{% social_actions profile_user %}``. Renders nothing for
    anonymous visitors or on your own profile.
    """
    from social.profile import profile_actions

    request = context.get("request")
    viewer = getattr(request, "user", None)
    actions = profile_actions(viewer=viewer, person=person,
                              next_url=request.get_full_path() if request else "")
    return {"actions": actions, "csrf_token": context.get("csrf_token")}
