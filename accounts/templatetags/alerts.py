"""``{% alert_preferences %}``: the signed-in player's alert choices as a JSON script element
(``#alert-preferences``) that static/js/attention.js reads; nothing for visitors."""
from django import template
from django.utils.html import json_script

register = template.Library()


@register.simple_tag(takes_context=True)
def alert_preferences(context):
    request = context.get("request")
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return ""
    return json_script(user.alert_preferences, "alert-preferences")
