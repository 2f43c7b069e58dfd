"""``GET /api/games/export/<username>/``: a player's finished games as newline-delimited
JSON, one stored record (``ginsite-game/1``, docs/records.md) a line, streamed
(docs/bot-api.md, "Export").

Public games for anyone, without a token (limited per address); private tables' games too
with the player's own token of scope ``games:read``. Filters: ``mode``, ``since``, ``until``
(a day ``2026-11-30`` or a time ``2026-11-30T18:00:00Z``; ``until`` a day is inclusive),
``max`` (at most that many games), each at most once. A bad filter answers 400, an
unknown player 404, both as the API's JSON errors (``accounts.api``).

The games are read in batches of ``BATCH`` down the player's index and written as they
come: under Daphne (ASGI) through an asynchronous iterator, each batch read in a thread, so
the export never holds a player's whole history in memory; under WSGI (and Django's test
client) through an ordinary iterator.
"""
from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime

from asgiref.sync import sync_to_async
from django.core.handlers.asgi import ASGIRequest
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.utils.dateparse import parse_date, parse_datetime
from django.views.decorators.http import require_safe

from accounts.api import ApiError, api_endpoint
from accounts.models import User
from accounts.selectors import user_get_by_username

from . import records, selectors
from .models import Mode

BATCH = 100
MAX_GAMES = 1_000_000
PARAMETERS = {"mode", "since", "until", "max"}
CONTENT_TYPE = "application/x-ndjson"


@dataclass(frozen=True)
class ExportQuery:
    player_id: int
    include_private: bool
    mode: str
    since: datetime | None
    until: datetime | None
    limit: int | None


def _bad(detail: str) -> ApiError:
    return ApiError(400, "bad_filter", detail)


_DAY = re.compile(r"\d{4}-\d{2}-\d{2}(?:$|T)")


def _moment(name: str, raw: str, *, end_of_day: bool) -> datetime | None:
    """A day (its start, or with ``end_of_day`` the next day's start) or an ISO time (UTC
    when it gives no zone), in UTC; None for a moment past what a datetime holds in UTC
    (``until=9999-12-31``, ``since=0001-01-01T00:00+05:00``): it leaves nothing out."""
    raw = raw.strip()
    try:
        # the documented forms alone: Python's ISO reader also took '٢٠٢٦-١١-٠١', '20261101'
        # and '2026-W48-1'
        if not (raw.isascii() and _DAY.match(raw)):
            raise ValueError(raw)
        day = parse_date(raw) if len(raw) == 10 else None
        if day is not None:
            return selectors.day_start(day, UTC, days_after=1 if end_of_day else 0)
        parsed = parse_datetime(raw.replace(" ", "+")) if len(raw) <= 40 else None
    except ValueError:
        parsed = None
    if parsed is None:
        raise _bad(f"'{name}' must be a day (2026-11-30) or a time (2026-11-30T18:00:00Z).")
    try:
        return parsed.astimezone(UTC) if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)
    except OverflowError:
        return None


def export_query(request: HttpRequest, player: User) -> ExportQuery:
    """The request's filters, checked (``ApiError`` 400 on any bad one)."""
    unknown = sorted(set(request.GET) - PARAMETERS)
    if unknown:
        raise _bad(f"Unknown parameter: {', '.join(unknown)[:100]}. "
                   f"Known: {', '.join(sorted(PARAMETERS))}.")
    repeated = sorted(k for k in request.GET if len(request.GET.getlist(k)) > 1)
    if repeated:  # (one mode per export: the last of two was taken silently)
        raise _bad(f"Give each filter once: {', '.join(repeated)} came more than once.")
    mode = request.GET.get("mode", "")
    if mode and mode not in Mode.values:
        raise _bad(f"'mode' must be one of {', '.join(Mode.values)}.")
    since = _moment("since", request.GET["since"], end_of_day=False) \
        if request.GET.get("since") else None
    until = _moment("until", request.GET["until"], end_of_day=True) \
        if request.GET.get("until") else None
    if since is not None and until is not None and since >= until:
        raise _bad("'since' must be before 'until'.")
    limit = None
    if request.GET.get("max"):
        raw = request.GET["max"]
        if not (raw.isascii() and raw.isdigit() and len(raw) <= 7 and 1 <= int(raw) <= MAX_GAMES):
            raise _bad(f"'max' must be a whole number from 1 to {MAX_GAMES}.")
        limit = int(raw)
    owner = request.user.is_authenticated and request.user.pk == player.pk
    return ExportQuery(player.pk, owner, mode, since, until, limit)


class ExportCursor:
    """Where an export stands: each ``next_chunk`` reads the next batch of games (down the
    player's index, below the last game sent) and returns its lines, or None at the end."""

    def __init__(self, query: ExportQuery):
        self.query = query
        self.before: int | None = None
        self.left = query.limit
        self.done = False

    def next_chunk(self) -> bytes | None:
        if self.done or (self.left is not None and self.left <= 0):
            return None
        q = self.query
        size = BATCH if self.left is None else min(BATCH, self.left)
        games = selectors.export_batch(
            player_id=q.player_id, include_private=q.include_private, mode=q.mode,
            since=q.since, until=q.until, before_game=self.before, size=size)
        if not games:
            return None
        self.done = len(games) < size
        self.before = games[-1].pk
        if self.left is not None:
            self.left -= len(games)
        return b"".join(json.dumps(records.record_json(g), separators=(",", ":")).encode()
                        + b"\n" for g in games)


def export_lines(query: ExportQuery) -> Iterator[bytes]:
    """The export's body, a batch of lines at a time (WSGI)."""
    return iter(ExportCursor(query).next_chunk, None)


async def export_lines_async(query: ExportQuery) -> AsyncIterator[bytes]:
    """The same, each batch read in a thread (ASGI: Daphne sends each as it comes)."""
    read = sync_to_async(ExportCursor(query).next_chunk)
    while (chunk := await read()) is not None:
        yield chunk


@require_safe
@api_endpoint("games:read", anonymous=True)
def games_export(request: HttpRequest, username: str) -> HttpResponse:
    try:
        player = user_get_by_username(username=username)
    except User.DoesNotExist:
        raise ApiError(404, "not_found", "There is no such player.") from None
    query = export_query(request, player)
    content = export_lines_async(query) if isinstance(request, ASGIRequest) \
        else export_lines(query)
    response = StreamingHttpResponse(content, content_type=CONTENT_TYPE)
    response["Content-Disposition"] = f'attachment; filename="{player.username}-games.ndjson"'
    response["Cache-Control"] = "private, no-store"
    response["X-Content-Type-Options"] = "nosniff"
    return response
