"""Reads of ratings, histories, leaderboards and playbans."""
from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

from django.db.models import Exists, OuterRef
from django.utils import timezone

from games.models import GamePlayer, Mode

from ..models import (
    GAIN_DAYS,
    LeaderboardEntry,
    LeaderboardRun,
    Period,
    Playban,
    Pool,
    Rating,
    RatingChange,
)
from . import conf, skill

NEW_RATING = skill.display(skill.new_rating())
PAGE_SIZE = 50


def _ids(user_ids: Iterable[int]) -> list[int]:
    return sorted({int(u) for u in user_ids if u is not None})


def ratings_for(user_ids: Iterable[int], mode: str) -> dict[int, int]:
    """The displayed rating of each user in ``mode`` (``NEW_RATING`` for users without one)."""
    ids = _ids(user_ids)
    found = dict(
        Rating.objects.filter(mode=mode, user_id__in=ids).values_list("user_id", "rating")
    )
    return {u: found.get(u, NEW_RATING) for u in ids}


def seed_ratings(user_ids: Iterable[int], mode: str) -> dict[int, tuple[int, bool]]:
    """``{user_id: (rating, provisional)}`` in ``mode``, one query (new players:
    ``(NEW_RATING, True)``): a tournament's seeds, shown "1500?" while provisional."""
    ids = _ids(user_ids)
    found = {u: (r, p) for u, r, p in Rating.objects.filter(
        mode=mode, user_id__in=ids).values_list("user_id", "rating", "provisional")}
    return {u: found.get(u, (NEW_RATING, True)) for u in ids}


def rating_labels(user_ids: Iterable[int], mode: str) -> dict[int, str]:
    """``{user_id: "1612"}``, with a "?" for provisional ratings (new players: "1500?")."""
    ids = _ids(user_ids)
    if mode not in Mode.values or not ids:
        return {}
    found = {
        u: skill.label(r, p) for u, r, p in Rating.objects.filter(
            mode=mode, user_id__in=ids).values_list("user_id", "rating", "provisional")
    }
    return {u: found.get(u, skill.label(NEW_RATING, True)) for u in ids}


def playban_until(user) -> datetime | None:
    """The end of ``user``'s active playban, or None."""
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    return (
        Playban.objects.filter(user_id=user.pk, until__gt=timezone.now())
        .order_by("-until").values_list("until", flat=True).first()
    )


def user_ratings(user) -> list[dict[str, Any]]:
    """Every mode with the user's rating in it (new-player values where none), mode order."""
    rows = {r.mode: r for r in Rating.objects.filter(user=user)}
    out = []
    for mode, name in Mode.choices:
        r = rows.get(mode)
        out.append({
            "mode": mode, "mode_name": name,
            "rating": r.rating if r else NEW_RATING,
            "deviation": r.deviation if r else skill.deviation(skill.new_rating()),
            "provisional": r.provisional if r else True,
            "games": r.games if r else 0,
            "label": r.label if r else skill.label(NEW_RATING, True),
        })
    return out


def rating_history(user, mode: str, limit: int = 500, *,
                   public_only: bool = False) -> list[RatingChange]:
    """The user's last ``limit`` rating changes in ``mode``, oldest first. ``public_only``
    leaves out the games played at private tables (what anybody but the player may see)."""
    qs = RatingChange.objects.filter(user=user, mode=mode)
    if public_only:
        # GamePlayer.private is the game's privacy, copied on each seat by the finish path
        # (it stays when the table row is gone); one index probe per row.
        qs = qs.exclude(Exists(GamePlayer.objects.filter(game_id=OuterRef("game_id"),
                                                         private=True)))
    rows = list(qs.order_by("-finished_at", "-game_id")[:limit])
    rows.reverse()
    return rows


def game_changes(game_ids: Iterable[int]) -> dict[int, dict[int, dict[str, int]]]:
    """``{game_id: {user_id: {"before", "after", "delta"}}}`` for the rated ones of these
    games."""
    out: dict[int, dict[int, dict[str, int]]] = {}
    ids = _ids(game_ids)
    if not ids:
        return out
    for game_id, user_id, before, after in RatingChange.objects.filter(
        game_id__in=ids
    ).values_list("game_id", "user_id", "rating_before", "rating_after"):
        out.setdefault(game_id, {})[user_id] = {
            "before": before, "after": after, "delta": after - before,
        }
    return out


def leaderboard_run(mode: str) -> LeaderboardRun | None:
    return LeaderboardRun.objects.filter(mode=mode).first()


def leaderboard_page(*, mode: str, period: str = Period.ALL, country: str = "",
                     page: int = 1, page_size: int = PAGE_SIZE,
                     run: LeaderboardRun | None = None,
                     pool: str = Pool.PEOPLE) -> dict[str, Any]:
    """One page of a snapshot: rows with ``shown_rank`` (shared by ties), one indexed query
    (the row count comes from the run). ``country`` filters (ranks then are the country's);
    ``pool`` is the people's board or the bots'."""
    page = max(1, int(page))
    qs = LeaderboardEntry.objects.filter(mode=mode, pool=pool, period=period)
    if country:
        qs = qs.filter(country=country)
        order = "country_position"
    else:
        order = "position"
    start = (page - 1) * page_size
    rows = list(
        qs.filter(**{f"{order}__gt": start, f"{order}__lte": start + page_size}).order_by(order)
    )
    run = run or leaderboard_run(mode)
    total = run.count(period, country, pool) if run else 0
    pages = max(1, (total + page_size - 1) // page_size)
    for row in rows:
        row.shown_rank = row.country_rank if country else row.rank
    return {"rows": rows, "page": page, "pages": pages, "total": total}


def my_position(*, user, mode: str, period: str = Period.ALL, country: str = "",
                pool: str = Pool.PEOPLE) -> dict | None:
    """Where ``user`` stands on that board: ``{"rank", "position"}`` or None when absent."""
    if user is None or not user.is_authenticated:
        return None
    # No ORDER BY (``first()`` would add one by id and PostgreSQL might then walk the
    # primary key): the unique (mode, period, user) index finds the row.
    row = next(iter(LeaderboardEntry.objects.filter(mode=mode, period=period, user=user,
                                                    pool=pool)
                    .only("rank", "position", "country", "country_rank",
                          "country_position")[:1]), None)
    if row is None or (country and row.country != country):
        return None
    if country:
        return {"rank": row.country_rank, "position": row.country_position}
    return {"rank": row.rank, "position": row.position}


def board_absence(user, mode: str, period: str = Period.ALL) -> str:
    """Why ``user`` is not on the mode's board of active established players (``period``
    all) or of best gains (week, month), and what puts them there: a player with 7 rated
    games read only "You are not on this board"."""
    name = Mode(mode).label
    rating = Rating.objects.filter(user=user, mode=mode).first()
    needed = skill.PROVISIONAL_GAMES
    if rating is None or rating.games == 0:
        return (f"You are not on this board: play rated games of {name} and you appear once "
                f"your rating is established, within {needed} rated games.")
    if rating.provisional:
        left = max(1, needed - rating.games)
        return (f"You are not on this board yet: your {name} rating is provisional, "
                f"{left} more rated game{'' if left == 1 else 's'} at most to establish it.")
    if period != Period.ALL:
        days = GAIN_DAYS[Period(period)]
        return (f"This board lists established players whose {name} rating rose over the "
                f"last {days} days: yours did not (or you played no rated game of {name} "
                "in them), or it rose since the board was brought up to date, every few "
                "minutes.")
    since = timezone.now() - timedelta(days=conf.active_days())
    if rating.last_game_at is None or rating.last_game_at < since:
        return (f"You are not on this board: it lists players with a rated game of {name} in "
                f"the last {conf.active_days()} days, and one brings you back.")
    return "You are not on this board yet: it is brought up to date every few minutes."


def top_players(mode: str, n: int = 5) -> list[LeaderboardEntry]:
    """The first ``n`` of the mode's rating board of people (home page and game rooms)."""
    return list(
        LeaderboardEntry.objects.filter(mode=mode, pool=Pool.PEOPLE, period=Period.ALL,
                                        position__lte=n)
        .order_by("position")
    )


def countries_on_board(mode: str, period: str = Period.ALL,
                       run: LeaderboardRun | None = None, pool: str = Pool.PEOPLE) -> list[str]:
    run = run or leaderboard_run(mode)
    return run.countries(period, pool) if run else []

