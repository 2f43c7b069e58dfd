"""``{% load ratings %}``: the top five of a mode, the playban banner.

* ``{% top_five mode %}``: the mode's first five from the leaderboard snapshot.
* ``{% playban_banner %}``: for a barred user, the time left before rated play (base.html).
"""
from __future__ import annotations

from django import template

from games.models import Mode

from ..ratings import answers, selectors

register = template.Library()


@register.inclusion_tag("leaderboards/_top_five.html")
def top_five(mode):
    mode = mode if mode in Mode.values else Mode.CLASSIC
    return {"mode": mode, "mode_name": Mode(mode).label, "rows": selectors.top_players(mode, 5),
            "run": selectors.leaderboard_run(mode)}


@register.inclusion_tag("leaderboards/_playban_banner.html", takes_context=True)
def playban_banner(context):
    request = context.get("request")
    user = getattr(request, "user", None)
    until = selectors.playban_until(user) if user is not None else None
    return {"until": until, "message": answers.playban_message(until) if until else ""}
