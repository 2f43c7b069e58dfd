"""``{% load bots %}``: ``{{ someone|bot_badge }}``, the BOT badge after the name of a bot
account (a program playing through the API, docs/bot-api.md), nothing for a person. Takes
a user, or a row with ``is_bot`` (a dict or an object)."""
from django import template
from django.utils.safestring import mark_safe

register = template.Library()

BADGE = ('<span class="badge badge-bot" title="A bot account: a program playing through '
         'the API">BOT</span>')


@register.filter
def bot_badge(someone) -> str:
    if someone is None:
        return ""
    is_bot = someone.get("is_bot") if isinstance(someone, dict) else getattr(
        someone, "is_bot", False)
    return mark_safe(" " + BADGE) if is_bot is True else ""  # a constant: nothing escaped
