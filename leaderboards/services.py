"""Writes of the leaderboards app: rating finished games, playbans, leaderboard snapshots.

Rating a game (``game_rate``) takes the mode's ``ModeLedger`` row lock, so the games of one
mode are applied one at a time; under it, every rated game of the mode that finished before
this one (finish time, then id) and is still unrated is applied first. Two games of the same
player that finish at the same moment are therefore applied in finish order whichever task
runs first, and running a task twice changes nothing (``RatingChange`` is unique per game and
user, and a rated game is skipped).
"""
from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, F, OuterRef, Q
from django.utils import timezone

from games.models import Ending, Game, GamePlayer

from . import skill
from .models import (
    LeaderboardEntry,
    LeaderboardRun,
    ModeLedger,
    Period,
    Playban,
    PlaybanStrike,
    Rating,
    RatingChange,
)

log = logging.getLogger(__name__)

# Games that finished this long before the one being rated and are still unrated are left to
# ``ratings_rebuild`` (a lost task older than this is an operations problem, not a race).
CATCH_UP_WINDOW = timedelta(hours=6)
# The playban ladder: strikes (abandoned or timed-out rated games) within the rolling window,
# counting the new one, give a bar of this many minutes. One strike is a warning.
PLAYBAN_WINDOW = timedelta(days=7)
PLAYBAN_LADDER = {2: 15, 3: 60, 4: 180, 5: 24 * 60}
STRIKE_ENDINGS = (Ending.TIMEOUT, Ending.ABANDONMENT)
ACTIVE_DAYS = 30


def _setting(name: str, default):
    return getattr(settings, name, default)


# ------------------------------------------------------------------------ which games count


@dataclass(frozen=True, slots=True)
class Entry:
    """One player of a game to rate."""

    user_id: int
    seat: int
    place: int


def human_moved(game: Game, seat: int) -> bool:
    return any(a.get("seat") == seat and a.get("source") == "player" for a in game.actions or [])


def is_aborted(game: Game, players: list[GamePlayer]) -> bool:
    """A game that ended early (resignation, timeout, abandonment) before every player had made
    a move of their own: nothing was played, so nothing is rated (Lichess's abort)."""
    if game.ending == Ending.NORMAL:
        return False
    return not all(human_moved(game, p.seat) for p in players)


def unrated_reason(game: Game, players: list[GamePlayer]) -> str | None:
    """Why ``game`` changes no rating, as shown to players ("ended before both players
    moved"), or None when it counts. The one rule: the rating task, the rebuild, the
    game-over panel, the game page, the archive and the tournament requirement all read it.

    Cheap checks first: ``game.actions`` is read only for a rated game between people that
    did not end normally."""
    if not game.rated:
        return "casual game"
    if game.mode not in skill.MODELS:
        return "this mode has no ratings"
    if len(players) < 2:
        return "fewer than two players"
    if any(p.bot_level is not None for p in players):
        return "a computer played"
    if any(p.user_id is None for p in players):
        return "a player's account was deleted"
    if len({p.user_id for p in players}) != len(players):
        return "one player held two seats"
    if is_aborted(game, players):
        everyone = "both players" if len(players) == 2 else "every player"
        return f"ended before {everyone} moved"
    return None


def rated_entries(game: Game, players: list[GamePlayer]) -> list[Entry] | None:
    """The players to rate, or None when the game does not count (``unrated_reason``)."""
    if unrated_reason(game, players) is not None:
        return None
    return [Entry(p.user_id, p.seat, p.place) for p in sorted(players, key=lambda p: p.seat)]


# ------------------------------------------------------------------------ rating games


def _ledger(mode: str) -> ModeLedger:
    ModeLedger.objects.get_or_create(mode=mode)
    return ModeLedger.objects.select_for_update().get(mode=mode)


def _ratings_locked(user_ids: list[int], mode: str) -> dict[int, Rating]:
    existing = set(
        Rating.objects.filter(mode=mode, user_id__in=user_ids).values_list("user_id", flat=True)
    )
    missing = [Rating(user_id=u, mode=mode) for u in user_ids if u not in existing]
    if missing:
        Rating.objects.bulk_create(missing, ignore_conflicts=True)
    return {
        r.user_id: r for r in
        Rating.objects.select_for_update().filter(mode=mode, user_id__in=user_ids).order_by("id")
    }


def _apply(game: Game, entries: list[Entry]) -> list[RatingChange]:
    """Rate one game (the ledger is locked by the caller)."""
    ratings = _ratings_locked([e.user_id for e in entries], game.mode)
    before = [ratings[e.user_id].skill for e in entries]
    after = skill.rate(game.mode, before, [e.place for e in entries])
    changes = []
    for e, old, new in zip(entries, before, after, strict=True):
        r = ratings[e.user_id]
        r.games += 1
        r.mu, r.sigma = new.mu, new.sigma
        r.rating, r.deviation = skill.display(new), skill.deviation(new)
        r.provisional = skill.is_provisional(new, r.games)
        if r.last_game_at is None or game.finished_at > r.last_game_at:
            r.last_game_at = game.finished_at
        r.save(update_fields=["games", "mu", "sigma", "rating", "deviation", "provisional",
                              "last_game_at"])
        changes.append(RatingChange(
            game=game, user_id=e.user_id, mode=game.mode, seat=e.seat, place=e.place,
            mu_before=old.mu, sigma_before=old.sigma, mu_after=new.mu, sigma_after=new.sigma,
            rating_before=skill.display(old), rating_after=r.rating,
            provisional=r.provisional, finished_at=game.finished_at,
        ))
    RatingChange.objects.bulk_create(changes)
    return changes


def _pending(mode: str, up_to: Game | None, since: datetime):
    """Rated games of ``mode`` not yet rated, finished since ``since`` and (with ``up_to``)
    not after it, in finish order."""
    qs = Game.objects.filter(
        mode=mode, rated=True, finished_at__gte=since,
    ).exclude(Exists(RatingChange.objects.filter(game=OuterRef("pk"))))
    qs = qs.exclude(Exists(GamePlayer.objects.filter(
        game=OuterRef("pk")).filter(Q(user__isnull=True) | Q(bot_level__isnull=False))))
    if up_to is not None:
        qs = qs.filter(Q(finished_at__lt=up_to.finished_at)
                       | Q(finished_at=up_to.finished_at, pk__lte=up_to.pk))
    return qs.prefetch_related("players").order_by("finished_at", "pk")


def game_rate(*, game_id: int) -> dict[int, list[RatingChange]]:
    """Rate game ``game_id`` and, first, any earlier unrated game of its mode.

    Returns ``{game_id: changes}`` for the games this call rated (empty when there was
    nothing to do: already rated, casual, aborted, a computer in a seat, no such game)."""
    game = Game.objects.filter(pk=game_id).first()
    if game is None or not game.rated or game.mode not in skill.MODELS:
        return {}
    done: dict[int, list[RatingChange]] = {}
    with transaction.atomic():
        _ledger(game.mode)
        since = min(timezone.now(), game.finished_at) - CATCH_UP_WINDOW
        todo = list(_pending(game.mode, game, since))
        for g in todo:
            entries = rated_entries(g, list(g.players.all()))
            if entries is None:
                continue
            done[g.pk] = _apply(g, entries)
        if done:
            ModeLedger.objects.filter(mode=game.mode).update(
                games_rated=F("games_rated") + len(done))
        _broadcast_after_commit(done)
    return done


def ratings_catch_up() -> int:
    """Rate every pending game of the catch-up window (periodic, in case a task was lost)."""
    count = 0
    for mode in skill.MODES:
        last = _pending(mode, None, timezone.now() - CATCH_UP_WINDOW).last()
        if last is not None:
            count += len(game_rate(game_id=last.pk))
    return count


def _broadcast_after_commit(done: dict[int, list[RatingChange]]) -> None:
    if not done:
        return
    table_ids = dict(Game.objects.filter(pk__in=list(done), table__isnull=False)
                     .values_list("pk", "table_id"))
    frames = [(table_ids[g], game_frame(g, changes)) for g, changes in done.items()
              if g in table_ids]
    if frames:
        from . import broadcast

        transaction.on_commit(lambda: broadcast.send_ratings(frames))


def game_frame(game_id: int, changes: Iterable[RatingChange]) -> dict[str, Any]:
    """The ``ratings`` frame of a rated game (docs/protocol.md)."""
    from django.contrib.auth import get_user_model

    changes = list(changes)
    names = dict(get_user_model().objects.filter(pk__in=[c.user_id for c in changes])
                 .values_list("pk", "username"))
    return {
        "game_id": game_id,
        "players": [
            {"seat": c.seat, "username": names.get(c.user_id), "rating": c.rating_after,
             "provisional": c.provisional, "label": skill.label(c.rating_after, c.provisional),
             "before": c.rating_before, "change": c.rating_after - c.rating_before}
            for c in sorted(changes, key=lambda c: c.seat)
        ],
    }


# ------------------------------------------------------------------------ playbans


def playban_minutes(strikes: int) -> int:
    """The length of the bar given by the ``strikes``-th strike in the window (0: a warning)."""
    if strikes < min(PLAYBAN_LADDER):
        return 0
    return PLAYBAN_LADDER[min(strikes, max(PLAYBAN_LADDER))]


def playban_record(*, game_id: int) -> Playban | None:
    """A rated game ended because a player timed out or left: a strike for them, and a bar
    from rated tables by the ladder. Idempotent (one strike per game and user)."""
    game = Game.objects.filter(pk=game_id).first()
    if (game is None or not game.rated or game.ending not in STRIKE_ENDINGS
            or game.loser_seat is None):
        return None
    player = GamePlayer.objects.filter(game=game, seat=game.loser_seat).first()
    if player is None or player.user_id is None:
        return None
    with transaction.atomic():
        strike, created = PlaybanStrike.objects.get_or_create(
            user_id=player.user_id, game=game,
            defaults={"at": game.finished_at, "reason": game.ending},
        )
        if not created:
            return Playban.objects.filter(strike=strike).first()
        count = PlaybanStrike.objects.filter(
            user_id=player.user_id, at__gt=strike.at - PLAYBAN_WINDOW, at__lte=strike.at,
        ).count()
        minutes = playban_minutes(count)
        if not minutes:
            return None
        return Playban.objects.create(
            user_id=player.user_id, strike=strike, started_at=strike.at,
            until=strike.at + timedelta(minutes=minutes), minutes=minutes,
        )


# ------------------------------------------------------------------------ leaderboards


def _ranked(rows: list[dict], key: str) -> None:
    """Set ``rank`` (ties share: 1, 2, 2, 4) and ``position`` on rows sorted by ``key``."""
    for i, row in enumerate(rows):
        if i and rows[i - 1][key] == row[key]:
            row["rank"] = rows[i - 1]["rank"]
        else:
            row["rank"] = i + 1
        row["position"] = i + 1


def _with_country_ranks(rows: list[dict], key: str) -> None:
    by_country: dict[str, list[dict]] = {}
    for row in rows:
        by_country.setdefault(row["country"], []).append(row)
    for group in by_country.values():
        for i, row in enumerate(group):
            if i and group[i - 1][key] == row[key]:
                row["country_rank"] = group[i - 1]["country_rank"]
            else:
                row["country_rank"] = i + 1
            row["country_position"] = i + 1


def _names(user_ids: list[int]) -> dict[int, dict[str, str]]:
    from django.contrib.auth import get_user_model

    out = {}
    for i in range(0, len(user_ids), 5000):
        for user in get_user_model().objects.filter(pk__in=user_ids[i:i + 5000]).only(
                "pk", "username", "display_name"):
            out[user.pk] = {"username": user.username, "name": user.public_name}
    return out


ENTRY_FIELDS = ["mode", "period", "user_id", "username", "name", "rank", "position", "country",
                "country_rank", "country_position", "rating", "gain", "games"]


def leaderboard_compute(*, mode: str, now: datetime | None = None) -> int:
    """Recompute the snapshot of ``mode``: the top-rated board (active in the last 30 days,
    not provisional) and the best gains of the week and the month. Returns the number of
    players on the rating board."""
    now = now or timezone.now()
    active = list(
        Rating.objects.filter(mode=mode, provisional=False,
                              last_game_at__gte=now - timedelta(days=ACTIVE_DAYS))
        .values("user_id", "rating", "games", "user__country")
    )
    names = _names([r["user_id"] for r in active])
    boards: dict[str, list[dict]] = {}
    rows = [{"user_id": r["user_id"], "rating": r["rating"], "games": r["games"],
             "country": r["user__country"] or "", "gain": 0, **names[r["user_id"]]}
            for r in active]
    rows.sort(key=lambda r: (-r["rating"], r["user_id"]))
    _ranked(rows, "rating")
    _with_country_ranks(rows, "rating")
    boards[Period.ALL] = rows
    current = {r["user_id"]: r for r in Rating.objects.filter(mode=mode).values(
        "user_id", "rating", "provisional", "user__country")}
    for period, days in ((Period.WEEK, 7), (Period.MONTH, 30)):
        first: dict[int, int] = {}
        counts: dict[int, int] = {}
        for user_id, before in (
            RatingChange.objects.filter(mode=mode, finished_at__gte=now - timedelta(days=days))
            .order_by("finished_at", "game_id").values_list("user_id", "rating_before")
        ):
            first.setdefault(user_id, before)
            counts[user_id] = counts.get(user_id, 0) + 1
        prow = []
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
    with transaction.atomic():
        LeaderboardEntry.objects.filter(mode=mode).delete()
        _insert_rows(LeaderboardEntry, ENTRY_FIELDS, [
            (mode, period, *(row[f] for f in ENTRY_FIELDS[2:]))
            for period, rows in boards.items() for row in rows
        ])
        tally: dict[str, int] = {}
        for period, rows in boards.items():
            tally[period] = len(rows)
            for row in rows:
                if row["country"]:
                    key = f"{period}:{row['country']}"
                    tally[key] = tally.get(key, 0) + 1
        LeaderboardRun.objects.update_or_create(
            mode=mode, defaults={"computed_at": now, "players": len(boards[Period.ALL]),
                                 "counts": tally},
        )
    _analyze(LeaderboardEntry)
    return len(boards[Period.ALL])


def _insert_rows(model, fields: list[str], rows: list[tuple], batch_size: int = 5000) -> None:
    """Insert many plain rows: PostgreSQL's COPY (much faster than ``bulk_create``, which
    spends its time building and adapting model instances: docs/operations.md, "Measured
    figures"), else ``bulk_create``."""
    from django.db import connection

    if not rows:
        return
    if connection.vendor == "postgresql":
        table = connection.ops.quote_name(model._meta.db_table)
        columns = ", ".join(connection.ops.quote_name(model._meta.get_field(f).column)
                            for f in fields)
        with connection.cursor() as cursor, cursor.cursor.copy(
                f"COPY {table} ({columns}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
        return
    names = [model._meta.get_field(f).attname for f in fields]
    model.objects.bulk_create([model(**dict(zip(names, row, strict=True))) for row in rows],
                              batch_size=batch_size)


def _analyze(model) -> None:
    """Refresh PostgreSQL's statistics of a table just rewritten in bulk: with stale ones the
    planner may walk the wrong index (docs/operations.md, "Measured figures") until
    autovacuum gets round to it."""
    from django.db import connection

    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(f"ANALYZE {connection.ops.quote_name(model._meta.db_table)}")


def leaderboards_compute_all(*, now: datetime | None = None) -> dict[str, int]:
    return {mode: leaderboard_compute(mode=mode, now=now) for mode in skill.MODES}


def table_ratings_frame(*, table_id: int) -> dict[str, Any] | None:
    """The ``ratings`` frame of a table's seated players (no changes), or None if nobody is
    seated or there is no such table."""
    from games.models import Seat, Table

    mode = Table.objects.filter(pk=table_id).values_list("mode", flat=True).first()
    if mode is None:
        return None
    seats = list(Seat.objects.filter(table_id=table_id, user__isnull=False)
                 .values_list("index", "user_id", "user__username"))
    if not seats:
        return None
    rows = {r.user_id: r for r in Rating.objects.filter(mode=mode,
                                                         user_id__in=[u for _, u, _ in seats])}
    players = []
    for index, user_id, username in sorted(seats):
        r = rows.get(user_id)
        rating = r.rating if r else skill.display(skill.new_rating())
        provisional = r.provisional if r else True
        players.append({"seat": index, "username": username, "rating": rating,
                        "provisional": provisional, "label": skill.label(rating, provisional),
                        "before": None, "change": None})
    return {"game_id": None, "players": players}


# ------------------------------------------------------------------------ rebuild


@dataclass(slots=True)
class _GameRow:
    pk: int
    mode: str
    rated: bool
    ending: str
    finished_at: datetime
    actions: list


@dataclass(slots=True)
class _PlayerRow:
    seat: int
    user_id: int | None
    bot_level: int | None
    place: int


CHANGE_FIELDS = ["game_id", "user_id", "mode", "seat", "place", "mu_before", "sigma_before",
                 "mu_after", "sigma_after", "rating_before", "rating_after", "provisional",
                 "finished_at"]
RATING_FIELDS = ["user_id", "mode", "mu", "sigma", "rating", "deviation", "provisional",
                 "games", "last_game_at"]


def ratings_rebuild(*, progress=None, batch_size: int = 20000) -> dict[str, int]:
    """Forget every rating and replay every rated game, mode by mode in finish order (finish
    time, then id: the order the incremental path uses), then recompute the leaderboards.
    The result equals the incremental one. ``progress(done, total)`` is called as it goes.

    Holds every mode's ledger lock, so no game is rated meanwhile (new finishes wait)."""
    with transaction.atomic():
        for mode in skill.MODES:
            _ledger(mode)
        games = [
            _GameRow(pk, mode, True, ending, finished_at, [])
            for pk, mode, ending, finished_at in Game.objects.filter(
                rated=True, mode__in=skill.MODES,
            ).order_by("mode", "finished_at", "pk").values_list("pk", "mode", "ending",
                                                                "finished_at").iterator(10000)
        ]
        early = [g for g in games if g.ending != Ending.NORMAL]
        by_pk = {g.pk: g for g in early}
        ids = list(by_pk)
        for i in range(0, len(ids), 2000):
            for pk, actions in Game.objects.filter(pk__in=ids[i:i + 2000]).values_list(
                    "pk", "actions"):
                by_pk[pk].actions = actions or []
        players: dict[int, list[_PlayerRow]] = {}
        for game_id, seat, user_id, bot_level, place in GamePlayer.objects.filter(
            game__rated=True
        ).values_list("game_id", "seat", "user_id", "bot_level", "place").iterator(20000):
            players.setdefault(game_id, []).append(_PlayerRow(seat, user_id, bot_level, place))

        RatingChange.objects.all().delete()
        Rating.objects.all().delete()
        state: dict[tuple[str, int], dict[str, Any]] = {}
        changes: list[tuple] = []
        rated_per_mode = {mode: 0 for mode in skill.MODES}
        total = len(games)
        for n, g in enumerate(games, start=1):
            entries = rated_entries(g, players.get(g.pk, []))
            if entries is not None:
                before = []
                for e in entries:
                    st = state.get((g.mode, e.user_id))
                    before.append(skill.Skill(st["mu"], st["sigma"]) if st else skill.Skill())
                after = skill.rate(g.mode, before, [e.place for e in entries])
                for e, old, new in zip(entries, before, after, strict=True):
                    st = state.setdefault((g.mode, e.user_id), {"games": 0, "last": None})
                    st["games"] += 1
                    st["mu"], st["sigma"] = new.mu, new.sigma
                    if st["last"] is None or g.finished_at > st["last"]:
                        st["last"] = g.finished_at
                    provisional = skill.is_provisional(new, st["games"])
                    changes.append((
                        g.pk, e.user_id, g.mode, e.seat, e.place, old.mu, old.sigma, new.mu,
                        new.sigma, skill.display(old), skill.display(new), provisional,
                        g.finished_at,
                    ))
                rated_per_mode[g.mode] += 1
            if len(changes) >= batch_size:
                _insert_rows(RatingChange, CHANGE_FIELDS, changes)
                changes = []
            if progress is not None and (n % 1000 == 0 or n == total):
                progress(n, total)
        _insert_rows(RatingChange, CHANGE_FIELDS, changes)
        ratings = []
        for (mode, user_id), st in state.items():
            s = skill.Skill(st["mu"], st["sigma"])
            ratings.append((
                user_id, mode, s.mu, s.sigma, skill.display(s), skill.deviation(s),
                skill.is_provisional(s, st["games"]), st["games"], st["last"],
            ))
        _insert_rows(Rating, RATING_FIELDS, ratings)
        for mode, count in rated_per_mode.items():
            ModeLedger.objects.filter(mode=mode).update(games_rated=count)
    _analyze(Rating)
    _analyze(RatingChange)
    leaderboards_compute_all()
    return {"games": sum(rated_per_mode.values()), "ratings": len(ratings),
            "changes": RatingChange.objects.count(), **{f"games_{m}": c
                                                        for m, c in rated_per_mode.items()}}
