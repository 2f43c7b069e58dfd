"""Questions that the apps above ``games`` may answer, without ``games`` importing them.

``social`` and ``leaderboards`` sit above ``games`` in the layering: ``games`` must not import
them. Yet blocking reaches the tables (someone you block cannot join your private tables,
and you do not see their table chat). So ``games`` asks through this small registry and
``social`` registers its answers in ``SocialConfig.ready()``:

* a **seat check** ``fn(table, user, others) -> str | None`` is asked before ``user`` takes a
  seat at, or opens, a *private* table. ``others`` is the frozenset of ids of the people they
  would join there (the table's creator and every seated player). A non-empty string refuses;
  the string is a reason for logs and tests only. The user is shown the same generic error as
  for a wrong invite link, so nobody learns that they are blocked.
* a **hidden-senders** function ``fn(user_id) -> set[int]`` names the users whose table chat
  ``user_id`` must not see. Table sockets ask it when they connect (and with every
  snapshot); the snapshot's recent chat is filtered with it too.

When the answer changes (a block is made or lifted), call ``hidden_senders_changed(user_ids)``:
after the commit, those users' open table sockets reload the set and get a fresh snapshot
without the hidden lines.

With nothing registered every seat is allowed and every line of chat is shown.
"""
from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import Any

from django.db import transaction

log = logging.getLogger(__name__)

SeatCheck = Callable[[Any, Any, frozenset], "str | None"]
HiddenSenders = Callable[[int], Iterable[int]]

_seat_checks: list[SeatCheck] = []
_hidden_senders: list[HiddenSenders] = []


def register_seat_check(fn: SeatCheck) -> SeatCheck:
    """Add a seat check (registering the same function twice keeps one copy)."""
    if fn not in _seat_checks:
        _seat_checks.append(fn)
    return fn


def register_hidden_senders(fn: HiddenSenders) -> HiddenSenders:
    """Add a hidden-senders function (registering it twice keeps one copy)."""
    if fn not in _hidden_senders:
        _hidden_senders.append(fn)
    return fn


RematchCheck = Callable[[Any], "str | None"]
_rematch_checks: list[RematchCheck] = []


def register_rematch_check(fn: RematchCheck) -> RematchCheck:
    """Add a rematch check ``fn(table) -> str | None``, asked before a rematch is offered or
    accepted at the finished ``table``: a non-empty string refuses, and is shown to the player
    (tournaments: a match's next game is the tournament's, not a rematch)."""
    if fn not in _rematch_checks:
        _rematch_checks.append(fn)
    return fn


def rematch_refusal(table) -> str | None:
    """Why no rematch may be offered at ``table``, or None. A check that raises refuses (fail
    closed): a rematch is worth less than a tournament's order."""
    for check in list(_rematch_checks):
        try:
            reason = check(table)
        except Exception:
            log.exception("rematch check %r failed: refusing", check)
            return "A rematch is not available right now; try again in a moment."
        if reason:
            return str(reason)
    return None


BusyCheck = Callable[[Any], "str | None"]
_busy_checks: list[BusyCheck] = []


def register_busy_check(fn: BusyCheck) -> BusyCheck:
    """Add a busy check ``fn(user) -> str | None``, asked before ``user`` takes a seat among
    people (sits, opens a table, accepts an invitation, a challenge or a rematch): a
    non-empty string refuses, and is shown to them (tournaments: their match is in play)."""
    if fn not in _busy_checks:
        _busy_checks.append(fn)
    return fn


def busy_refusal(user) -> str | None:
    """Why ``user`` may not sit down among people now, or None. A check that raises allows
    (fail open, logged): a broken answer must not stop everyone playing."""
    if user is None or not user.is_authenticated:
        return None
    for check in list(_busy_checks):
        try:
            with transaction.atomic():  # (a failed query must not abort the caller's)
                reason = check(user)
        except Exception:
            log.exception("busy check %r failed: allowing", check)
            continue
        if reason:
            return str(reason)
    return None


def unregister(fn: Callable) -> None:
    """Remove ``fn`` from the seat, busy, chat and rematch registries (tests)."""
    for registry in (_seat_checks, _busy_checks, _hidden_senders, _rematch_checks):
        while fn in registry:
            registry.remove(fn)


def seat_refusal(table, user, others: Iterable[int | None]) -> str | None:
    """The first refusal of a registered seat check, or None when ``user`` may join.

    ``user`` themself is left out of ``others``. A check that raises refuses (fail closed).
    """
    if not _seat_checks or user is None or not user.is_authenticated:
        return None
    people = frozenset(o for o in others if o is not None and o != user.pk)
    if not people:
        return None
    for check in list(_seat_checks):
        try:
            reason = check(table, user, people)
        except Exception:
            log.exception("seat check %r failed: refusing", check)
            return "check_failed"
        if reason:
            return str(reason)
    return None


def hidden_senders(user) -> frozenset[int]:
    """Ids of the users whose table chat ``user`` must not see (empty for visitors).

    A function that raises hides nothing (chat is not worth breaking a table socket for).
    """
    if user is None or not getattr(user, "is_authenticated", False) or not _hidden_senders:
        return frozenset()
    hidden: set[int] = set()
    for fn in list(_hidden_senders):
        try:
            hidden.update(fn(user.pk))
        except Exception:
            log.exception("hidden-senders function %r failed", fn)
    hidden.discard(user.pk)
    return frozenset(hidden)


def hidden_senders_changed(user_ids: Iterable[int]) -> None:
    """The hidden senders of these users changed: refresh their open table sockets (after the
    current transaction commits; at once outside one)."""
    from django.db import transaction

    from . import broadcast

    ids = sorted({int(i) for i in user_ids if i is not None})
    if ids:
        transaction.on_commit(lambda: broadcast.send_hidden_changed(user_ids=ids))


# ------------------------------------------------------------------------ reachable players
#
# A waiting table is kept for its people while the site can call them to it when it fills up
# (``signals.game_started``: a page of the site open anywhere, not only the table's). Only
# ``social`` knows who has a page open (its notification sockets), so it registers a
# **reachable** function ``fn(user_ids) -> set of the ids it can reach now``. With nothing
# registered, or when the answer fails, everyone counts as reachable: no table is closed on a
# guess.

Reachable = Callable[[list[int]], Iterable[int]]

_reachable: list[Reachable] = []


def register_reachable(fn: Reachable) -> Reachable:
    if fn not in _reachable:
        _reachable.append(fn)
    return fn


def unregister_reachable(fn: Callable) -> None:
    """Remove ``fn`` (tests)."""
    while fn in _reachable:
        _reachable.remove(fn)


def reachable(user_ids: Iterable[int]) -> set[int]:
    """Those of ``user_ids`` the site can reach now (all of them when nobody can tell)."""
    ids = [int(u) for u in user_ids if u is not None]
    if not ids or not _reachable:
        return set(ids)
    found: set[int] = set()
    for fn in list(_reachable):
        try:
            found.update(int(u) for u in fn(ids))
        except Exception:
            log.exception("reachable %r failed: counting everyone reachable", fn)
            return set(ids)
    return found & set(ids)


# ------------------------------------------------------------------------ ratings
#
# ``leaderboards`` (above ``games``) keeps the ratings and registers five answers in its
# ``ready()``; with nothing registered tables have no rating conditions and names no ratings.
#
# * a **rated seat check** ``fn(table, user) -> str | None`` is asked before ``user`` takes a
#   seat at (or creates, or rematches at) a *rated* table. A non-empty string refuses and is
#   shown to the user as it is ("You may play rated games again in 14 minutes.").
# * **rating labels** ``fn(user_ids, mode) -> {user_id: "1612"}`` (a "?" marks a provisional
#   rating) for names in lists, seats and game pages.
# * **rating changes** ``fn(game_ids) -> {game_id: {user_id: change}}``: the rating change of
#   each player of each rated game, for the game page and the game list.
# * **unrated reasons** ``fn(games) -> {game_id: "ended before both players moved"}``: why a
#   game created rated changes no rating (the ratings app's one rule), for the game-over
#   panel, the game page and the archive. Games missing from the answer count.
# * **table ratings** ``fn(mode, {seat: user_id}, game_id) -> {seat: entry}``: what a table's
#   frames show of each seated person's rating (``games.frames.ratings_data``); ``game_id``
#   is the table's finished game (None before), whose changes the entries carry once it has
#   been rated. When they change (the game was rated), the ratings app asks
#   ``games.services.table_republish`` for a new version of the table.
# * **seat ranges** ``fn(tables, user) -> {table_id: {"low": 1400, "high": 1800, "fits":
#   bool | None}}``: of the rated tables in a room's list that admit only players rated within
#   a range, the range and whether ``user`` (None, or anonymous: ``fits`` None) is in it, so a
#   row says who may sit and offers Join only to them (the seat check still decides).

RatedSeatCheck = Callable[[Any, Any], "str | None"]
RatingLabels = Callable[[Iterable[int], str], "dict[int, str]"]
RatingChanges = Callable[[Iterable[int]], "dict[int, dict[int, int]]"]
UnratedReasons = Callable[[list], "dict[int, str]"]
TableRatings = Callable[[str, "dict[int, int]", "int | None"], "dict[int, dict[str, Any]]"]
SeatRanges = Callable[[list, Any], "dict[int, dict[str, Any]]"]

_rated_seat_checks: list[RatedSeatCheck] = []
_rating_labels: list[RatingLabels] = []
_rating_changes: list[RatingChanges] = []
_unrated_reasons: list[UnratedReasons] = []
_table_ratings: list[TableRatings] = []
_seat_ranges: list[SeatRanges] = []


def register_rated_seat_check(fn: RatedSeatCheck) -> RatedSeatCheck:
    if fn not in _rated_seat_checks:
        _rated_seat_checks.append(fn)
    return fn


def register_rating_labels(fn: RatingLabels) -> RatingLabels:
    if fn not in _rating_labels:
        _rating_labels.append(fn)
    return fn


def register_rating_changes(fn: RatingChanges) -> RatingChanges:
    if fn not in _rating_changes:
        _rating_changes.append(fn)
    return fn


def register_unrated_reasons(fn: UnratedReasons) -> UnratedReasons:
    if fn not in _unrated_reasons:
        _unrated_reasons.append(fn)
    return fn


def register_table_ratings(fn: TableRatings) -> TableRatings:
    if fn not in _table_ratings:
        _table_ratings.append(fn)
    return fn


def register_seat_ranges(fn: SeatRanges) -> SeatRanges:
    if fn not in _seat_ranges:
        _seat_ranges.append(fn)
    return fn


def unregister_ratings(fn: Callable) -> None:
    """Remove ``fn`` from the rating registries (tests)."""
    for registry in (_rated_seat_checks, _rating_labels, _rating_changes, _unrated_reasons,
                     _table_ratings, _seat_ranges):
        while fn in registry:
            registry.remove(fn)


def _gathered(registry: list, what: str, *args: Any) -> dict:
    """The answers of the functions in ``registry`` to ``args``, merged. One that fails is
    logged and left out: a list or a frame is not worth breaking for a rating."""
    found: dict = {}
    for fn in list(registry):
        try:
            found.update(fn(*args))
        except Exception:
            log.exception("%s %r failed", what, fn)
    return found


def rated_seat_refusal(table, user) -> str | None:
    """The message refusing ``user`` a seat at the rated ``table``, or None. A check that
    raises refuses (fail closed) with a generic message."""
    if not getattr(table, "rated", False) or user is None or not user.is_authenticated:
        return None
    for check in list(_rated_seat_checks):
        try:
            reason = check(table, user)
        except Exception:
            log.exception("rated seat check %r failed: refusing", check)
            return "Rated tables are not available right now; try again in a moment."
        if reason:
            return str(reason)
    return None


def rating_labels(user_ids: Iterable[int], mode: str) -> dict[int, str]:
    """``{user_id: label}`` of these users in ``mode`` (empty when nothing is registered or
    the answer fails: a list is not worth breaking for a rating)."""
    ids = [int(u) for u in user_ids if u is not None]
    return _gathered(_rating_labels, "rating labels", ids, mode) if ids else {}


def rating_changes(game_ids: Iterable[int]) -> dict[int, dict[int, int]]:
    """``{game_id: {user_id: change}}`` for the rated ones of these games."""
    ids = [int(g) for g in game_ids if g is not None]
    changes: dict[int, dict[int, int]] = {}
    if not ids:
        return changes
    for fn in list(_rating_changes):
        try:
            for game_id, per_user in fn(ids).items():
                changes.setdefault(game_id, {}).update(per_user)
        except Exception:
            log.exception("rating changes %r failed", fn)
    return changes


def unrated_reasons(games: Iterable[Any]) -> dict[int, str]:
    """``{game_id: reason}`` for those of these finished games (``Game`` rows, players
    prefetched if many) that were created rated but change no rating. Empty when nothing is
    registered; a failing answer gives no reason rather than breaking a page."""
    games = [g for g in games if g is not None and getattr(g, "rated", False)]
    return _gathered(_unrated_reasons, "unrated reasons", games) if games else {}


def table_ratings(mode: str, players: dict[int, int],
                  game_id: int | None) -> dict[int, dict[str, Any]]:
    """``{seat: entry}`` for the seated people ``players`` (``{seat: user_id}``) of a table of
    ``mode`` whose finished game is ``game_id`` (None before the end). Empty when nothing is
    registered; a failing answer shows no ratings rather than breaking a frame."""
    if not players:
        return {}
    return _gathered(_table_ratings, "table ratings", mode, dict(players), game_id)


def seat_ranges(tables: Iterable[Any], user: Any) -> dict[int, dict[str, Any]]:
    """``{table_id: {"low", "high", "fits"}}`` for those of ``tables`` that admit only
    players rated within a range. Empty when nothing is registered; a failing answer shows no
    range rather than breaking a list (the seat check still refuses)."""
    tables = [t for t in tables if getattr(t, "rated", False)]
    return _gathered(_seat_ranges, "seat ranges", tables, user) if tables else {}
