"""Leaderboard snapshots: the beat job recomputes each mode's boards (top rated, best gains
of the week and of the month) into ``LeaderboardEntry`` rows that the pages read."""
from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from ...models import (
    GAIN_DAYS,
    LeaderboardEntry,
    LeaderboardRun,
    Period,
    Pool,
    Rating,
    RatingChange,
    board_key,
)
from .. import conf, skill
from .bulk import analyze, insert_rows


def _ranked(rows: list[dict[str, Any]], key: str, prefix: str = "") -> None:
    """Set ``<prefix>rank`` (ties share: 1, 2, 2, 4) and ``<prefix>position`` on rows sorted
    by ``key``."""
    rank, position = f"{prefix}rank", f"{prefix}position"
    for i, row in enumerate(rows):
        if i and rows[i - 1][key] == row[key]:
            row[rank] = rows[i - 1][rank]
        else:
            row[rank] = i + 1
        row[position] = i + 1


def _with_country_ranks(rows: list[dict[str, Any]], key: str) -> None:
    """Set ``country_rank`` and ``country_position``: the ranks among the same country's rows."""
    by_country: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by_country.setdefault(row["country"], []).append(row)
    for group in by_country.values():
        _ranked(group, key, "country_")


def _names(user_ids: list[int]) -> dict[int, dict[str, str]]:
    out = {}
    for i in range(0, len(user_ids), 5000):
        for user in get_user_model().objects.filter(pk__in=user_ids[i:i + 5000]).only(
                "pk", "username", "display_name"):
            out[user.pk] = {"username": user.username, "name": user.public_name}
    return out


ENTRY_FIELDS = ["mode", "period", "pool", "user_id", "username", "name", "rank", "position",
                "country", "country_rank", "country_position", "rating", "gain", "games"]


def _pool_boards(mode: str, now: datetime, bots: bool) -> dict[str, list[dict[str, Any]]]:
    """The three boards of one pool (people's or bots') of ``mode``."""
    active = list(
        Rating.objects.filter(mode=mode, provisional=False, user__is_bot=bots, user__is_active=True,
                              last_game_at__gte=now - timedelta(days=conf.active_days()))
        .values("user_id", "rating", "games", "user__country")
    )
    names = _names([r["user_id"] for r in active])
    boards: dict[str, list[dict[str, Any]]] = {}
    rows: list[dict[str, Any]] = [
        {"user_id": r["user_id"], "rating": r["rating"], "games": r["games"],
         "country": r["user__country"] or "", "gain": 0, **names[r["user_id"]]}
        for r in active
    ]
    rows.sort(key=lambda r: (-r["rating"], r["user_id"]))
    _ranked(rows, "rating")
    _with_country_ranks(rows, "rating")
    boards[Period.ALL] = rows
    current = {r["user_id"]: r for r in Rating.objects.filter(
        mode=mode, user__is_bot=bots, user__is_active=True).values(
        "user_id", "rating", "provisional", "user__country")}
    for period, days in GAIN_DAYS.items():
        first: dict[int, int] = {}
        counts: dict[int, int] = {}
        for user_id, before in (
            RatingChange.objects.filter(mode=mode, finished_at__gte=now - timedelta(days=days),
                                        user__is_bot=bots)
            .order_by("finished_at", "game_id").values_list("user_id", "rating_before")
        ):
            first.setdefault(user_id, before)
            counts[user_id] = counts.get(user_id, 0) + 1
        prow: list[dict[str, Any]] = []
        for user_id, before in first.items():
            cur = current.get(user_id)
            if cur is None or cur["provisional"]:
                continue
            gain = cur["rating"] - before
            if gain <= 0:
                continue
            prow.append({"user_id": user_id, "rating": cur["rating"], "gain": gain,
                         "games": counts[user_id], "country": cur["user__country"] or ""})
        names.update(_names([r["user_id"] for r in prow if r["user_id"] not in names]))
        for r in prow:
            r.update(names[r["user_id"]])
        prow.sort(key=lambda r: (-r["gain"], -r["rating"], r["user_id"]))
        _ranked(prow, "gain")
        _with_country_ranks(prow, "gain")
        boards[period] = prow
    return boards


def leaderboard_compute(*, mode: str, now: datetime | None = None) -> int:
    """Recompute the snapshot of ``mode``: for people and, apart, for bots (their pools
    never mix), the top-rated board (active in the last 30 days, not provisional) and the
    best gains of the week and the month. Returns the number of people on the rating
    board."""
    now = now or timezone.now()
    pools = {Pool.PEOPLE: _pool_boards(mode, now, bots=False),
             Pool.BOTS: _pool_boards(mode, now, bots=True)}
    with transaction.atomic():
        LeaderboardEntry.objects.filter(mode=mode).delete()
        insert_rows(LeaderboardEntry, ENTRY_FIELDS, [
            (mode, board, pool, *(row[f] for f in ENTRY_FIELDS[3:]))
            for pool, boards in pools.items()
            for board, rows in boards.items() for row in rows
        ])
        tally: dict[str, int] = {}
        for pool, boards in pools.items():
            for board, rows in boards.items():
                tally[board_key(board, "", pool)] = len(rows)
                for row in rows:
                    if row["country"]:
                        key = board_key(board, row["country"], pool)
                        tally[key] = tally.get(key, 0) + 1
        people = len(pools[Pool.PEOPLE][Period.ALL])
        LeaderboardRun.objects.update_or_create(
            mode=mode, defaults={"computed_at": now, "players": people, "counts": tally},
        )
    analyze(LeaderboardEntry)
    return people


def leaderboards_compute_all(*, now: datetime | None = None) -> dict[str, int]:
    return {mode: leaderboard_compute(mode=mode, now=now) for mode in skill.MODES}


def leaderboards_leave(user: Any) -> None:
    """A closing account (``accounts.closing``) leaves every board at once; the next
    snapshot leaves it out too (closed accounts are not ranked)."""
    LeaderboardEntry.objects.filter(user=user).delete()
