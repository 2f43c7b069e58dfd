"""``ratings_rebuild``: forget every rating and replay every rated game in the order the
incremental path uses, with the same maths (``skill``) and the same rule (``rules``), so the
result equals the incremental one."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction

from games.models import Game, GamePlayer

from ...models import ModeLedger, Rating, RatingChange
from .. import skill
from ..rules import needs_moves, rated_entries
from .boards import leaderboards_compute_all
from .bulk import analyze, insert_rows
from .rating import ledger_lock


@dataclass(slots=True)
class _GameRow:
    pk: int
    mode: str
    rated: bool
    ending: str
    finished_at: datetime
    actions: list[dict[str, Any]]


@dataclass(slots=True)
class _PlayerRow:
    seat: int
    user_id: int | None
    bot_level: int | None
    place: int
    left: str = ""


CHANGE_FIELDS = ["game_id", "user_id", "mode", "seat", "place", "mu_before", "sigma_before",
                 "mu_after", "sigma_after", "rating_before", "rating_after", "provisional",
                 "finished_at"]
RATING_FIELDS = ["user_id", "mode", "mu", "sigma", "rating", "deviation", "provisional",
                 "games", "last_game_at"]


def ratings_rebuild(*, progress: Callable[[int, int], Any] | None = None,
                    batch_size: int = 20000) -> dict[str, int]:
    """Forget every rating and replay every rated game, mode by mode in finish order (finish
    time, then id: the order the incremental path uses), then recompute the leaderboards.
    The result equals the incremental one. ``progress(done, total)`` is called as it goes.

    Holds every mode's ledger lock, so no game is rated meanwhile (new finishes wait)."""
    with transaction.atomic():
        for mode in skill.MODES:
            ledger_lock(mode)
        games = [
            _GameRow(pk, mode, True, ending, finished_at, [])
            for pk, mode, ending, finished_at in Game.objects.filter(
                rated=True, mode__in=skill.MODES,
            ).order_by("mode", "finished_at", "pk").values_list("pk", "mode", "ending",
                                                                "finished_at").iterator(10000)
        ]
        players: dict[int, list[_PlayerRow]] = {}
        for game_id, seat, user_id, bot_level, place, left in GamePlayer.objects.filter(
            game__rated=True
        ).values_list("game_id", "seat", "user_id", "bot_level", "place", "left").iterator(
                20000):
            players.setdefault(game_id, []).append(
                _PlayerRow(seat, user_id, bot_level, place, left))
        # the moves, of the games whose rule reads them (ended early, or somebody left)
        by_pk = {g.pk: g for g in games if needs_moves(g, players.get(g.pk, []))}
        ids = list(by_pk)
        for i in range(0, len(ids), 2000):
            for pk, actions in Game.objects.filter(pk__in=ids[i:i + 2000]).values_list(
                    "pk", "actions"):
                by_pk[pk].actions = actions or []

        bots = set(get_user_model().objects.filter(is_bot=True).values_list("pk", flat=True))
        RatingChange.objects.all().delete()
        Rating.objects.all().delete()
        state: dict[tuple[str, int], dict[str, Any]] = {}
        changes: list[tuple[Any, ...]] = []
        rated_per_mode = {mode: 0 for mode in skill.MODES}
        total = len(games)
        for n, g in enumerate(games, start=1):
            entries = rated_entries(g, players.get(g.pk, []), bots)
            if entries is not None:
                before = []
                for e in entries:
                    st = state.get((g.mode, e.user_id))
                    before.append(skill.Skill(st["mu"], st["sigma"]) if st else skill.Skill())
                after = skill.rate(g.mode, before, [e.place for e in entries])
                for e, old, new in zip(entries, before, after, strict=True):
                    if not e.moves:  # a person facing a bot: the fixed reference
                        continue
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
                insert_rows(RatingChange, CHANGE_FIELDS, changes)
                changes = []
            if progress is not None and (n % 1000 == 0 or n == total):
                progress(n, total)
        insert_rows(RatingChange, CHANGE_FIELDS, changes)
        ratings = []
        for (mode, user_id), st in state.items():
            s = skill.Skill(st["mu"], st["sigma"])
            ratings.append((
                user_id, mode, s.mu, s.sigma, skill.display(s), skill.deviation(s),
                skill.is_provisional(s, st["games"]), st["games"], st["last"],
            ))
        insert_rows(Rating, RATING_FIELDS, ratings)
        for mode, count in rated_per_mode.items():
            ModeLedger.objects.filter(mode=mode).update(games_rated=count)
    analyze(Rating)
    analyze(RatingChange)
    leaderboards_compute_all()
    return {"games": sum(rated_per_mode.values()), "ratings": len(ratings),
            "changes": RatingChange.objects.count(), **{f"games_{m}": c
                                                        for m, c in rated_per_mode.items()}}
