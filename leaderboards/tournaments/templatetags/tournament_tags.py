"""``{% tournaments_soon mode %}``: the tournaments taking entries, with Enter buttons, for the
lobby (all modes) and a room (its mode). Templates of other apps include it; no Python of
theirs imports tournaments."""
from django import template

from .. import selectors

register = template.Library()


@register.inclusion_tag("tournaments/_soon.html", takes_context=True)
def tournaments_soon(context, mode=None):
    request = context.get("request")
    user = getattr(request, "user", None)
    return {"soon": selectors.starting_soon(mode, user), "request": request, "user": user,
            "csrf_token": context.get("csrf_token")}


@register.inclusion_tag("tournaments/_waiting.html", takes_context=True)
def your_waiting_matches(context):
    """Beside Your tables (home and Play pages): the player's tournament matches paired and
    waiting for both players to be free."""
    request = context.get("request")
    return {"waiting": selectors.waiting_matches(getattr(request, "user", None))}


@register.simple_tag
def with_tournament_names(rows):
    """On Your tables (the player's own list): its rows, each with ``tournament``, the name of
    the tournament whose match that table is, or "" (a match read as any table there). One
    query for the whole list."""
    from ..models import Match

    names = dict(Match.objects.filter(table_id__in=[r["id"] for r in rows])
                 .values_list("table_id", "tournament__name")) if rows else {}
    return [{**r, "tournament": names.get(r["id"], "")} for r in rows]


@register.inclusion_tag("tournaments/_table_link.html", takes_context=True)
def tournament_of_table(context, table_id):
    """On a table page: which tournament match this table is, with a link back (and, for
    its two players, where to read what comes next: a knockout's loser has no next match, so
    it does not promise one; after a final, the results)."""
    from ..models import Match

    match = (Match.objects.filter(table_id=table_id).select_related("tournament").first()
             if table_id else None)
    user = context.get("user")
    player = (match is not None and user is not None and user.is_authenticated
              and user.pk in (match.player_a_id, match.player_b_id))
    return {"match": match, "title": selectors.match_title(match) if match else "",
            "player": player,
            # a final has no next match: its players are sent to the results instead
            "last": player and match is not None and selectors.match_is_last(match)}

