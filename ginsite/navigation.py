"""Which entry of the main navigation the page at hand belongs to (``nav_current``), one rule
in one place: the template only compares it.

- Play: the lobby, the rooms, the tables, the computer and offline play.
- Tournaments, Leaderboards and Messages (with contacts, invitations and challenges): their
  apps' pages.
- Profile: the signed-in player's own pages: the profile, the settings, their archive of
  games and imports, their statistics. Another player's profile or archive, and a game's
  replay, belong to no entry.
"""
from __future__ import annotations

from typing import Any

from django.http import HttpRequest

PLAY = frozenset({
    "lobby", "play_computer", "offline", "room", "table_create", "table",
})
OWN_RECORDS = frozenset({"my_games", "game_import", "imported"})


def current(request: HttpRequest) -> str | None:
    match = getattr(request, "resolver_match", None)
    if match is None:
        return None
    app, name = match.app_name, match.url_name
    user = getattr(request, "user", None)
    username = getattr(user, "username", None) if getattr(user, "is_authenticated", False) \
        else None
    own = username is not None and match.kwargs.get("username") == username
    if app == "games":
        if name in PLAY:
            return "play"
        if name in OWN_RECORDS or name == "player_games" and own:
            return "profile"
        return None
    if app == "tournaments" or app == "leaderboards" and name == "tournaments":
        return "tournaments"
    if app == "leaderboards":
        return "leaderboards"
    if app == "social":
        return "messages"
    if app == "stats":
        return "profile"
    if app == "accounts":
        return "profile" if name != "profile" or own else None
    return None


def nav(request: HttpRequest) -> dict[str, Any]:
    """The context processor: ``nav_current`` for templates/base.html."""
    return {"nav_current": current(request)}
