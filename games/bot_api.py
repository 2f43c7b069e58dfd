"""The games part of the bot API (docs/bot-api.md, "Playing"): the bot's live tables, and a
table against the site's computer (what ``bench/bots_api.py`` plays). Token auth with scope
``bot:play`` (``accounts.api``); moves themselves go over the table socket.
"""
from __future__ import annotations

from typing import Any

from django.http import HttpRequest, JsonResponse
from django.views.decorators.http import require_POST, require_safe

from accounts.api import ApiError, api_endpoint, error_response, json_object_body

from . import selectors, services
from .bots.levels import LEVEL_BY_NUMBER
from .exceptions import GameServiceError
from .models import Mode

TURN_SECONDS = (0, 15, 30, 60)


def table_ref(table_id: int, mode: str, status: str) -> dict[str, Any]:
    return {"id": table_id, "mode": mode, "status": status, "url": f"/tables/{table_id}/",
            "socket": f"/ws/table/{table_id}/"}


@require_safe
@api_endpoint("bot:play")
def api_games(request: HttpRequest) -> JsonResponse:
    """The tables the bot holds a seat at that are waiting or being played (to resume after
    a restart: open each one's socket)."""
    rows = selectors.user_live_tables(request.user)
    return JsonResponse({"games": [table_ref(r["id"], r["mode"], r["status"]) for r in rows]})


def _bad(detail: str, status: int = 400, code: str = "bad_request") -> JsonResponse:
    return error_response(ApiError(status, code, detail))


@require_POST
@api_endpoint("bot:play")
def api_computer(request: HttpRequest) -> JsonResponse:
    """A table of the bot against the computer, started at once: ``{"mode", "level" (1-4,
    4 is Expert), "seconds_per_turn" (0, 15, 30, 60; default 0), "seats" (rummy: 2-4),
    "target" (50-500, or null for the mode's own)}``.
    Casual, as every game against the computer."""
    try:
        data = json_object_body(request)
    except ApiError as exc:
        return error_response(exc)
    mode, level = data.get("mode"), data.get("level", 4)
    seconds, seats = data.get("seconds_per_turn", 0), data.get("seats", 2)
    target = data.get("target")
    if mode not in Mode.values:
        return _bad(f'"mode" must be one of {", ".join(Mode.values)}.')
    if not isinstance(level, int) or isinstance(level, bool) or level not in LEVEL_BY_NUMBER:
        return _bad('"level" must be 1, 2, 3 or 4 (Expert).')
    if not isinstance(seconds, int) or isinstance(seconds, bool) or seconds not in TURN_SECONDS:
        return _bad('"seconds_per_turn" must be 0, 15, 30 or 60.')
    if not isinstance(seats, int) or isinstance(seats, bool) or not 2 <= seats <= 4:
        return _bad('"seats" must be 2, 3 or 4.')
    if target is not None and (not isinstance(target, int) or isinstance(target, bool)):
        return _bad('"target" must be a whole number from 50 to 500, or null.')
    try:
        table = services.play_computer(user=request.user, mode=mode, level=level,
                                       seat_count=seats, seconds_per_turn=seconds,
                                       target=target, bot_api=True)
    except GameServiceError as exc:
        return _bad(exc.message, 400, exc.code)
    return JsonResponse({"table": table_ref(table.pk, table.mode, table.status)}, status=201)
