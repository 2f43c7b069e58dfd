"""Rating finished games.

Rating a game (``game_rate``) takes the mode's ``ModeLedger`` row lock, so the games of one
mode are applied one at a time; under it, every rated game of the mode that finished before
this one (finish time, then id) and is still unrated is applied first. Two games of the same
player that finish at the same moment are therefore applied in finish order whichever task
runs first, and running a task twice changes nothing (``RatingChange`` is unique per game and
user, and a rated game is skipped).

Once the ratings are committed, the games app is asked to publish a new version of each
rated game's table (``games.services.table_republish``): its frames carry the changes
(``leaderboards.ratings.frames``, through ``games.hooks``).
"""
from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import datetime

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Exists, F, OuterRef, Q, QuerySet
from django.utils import timezone

from games.models import Game, GamePlayer

from ...models import ModeLedger, Rating, RatingChange
from .. import conf, skill
from ..rules import Entry, rated_entries

log = logging.getLogger(__name__)


def ledger_lock(mode: str) -> ModeLedger:
    """The mode's ledger row, locked: games of one mode are rated one at a time."""
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


def bot_ids_among(user_ids: Iterable[int]) -> set[int]:
    """Which of these users are bot accounts (their ratings are the bots' pool)."""
    return set(get_user_model().objects.filter(pk__in=list(user_ids), is_bot=True)
               .values_list("pk", flat=True))


def _fixed_skills(user_ids: list[int], mode: str) -> dict[int, skill.Skill]:
    """The current skill of players whose rating a game does not move (a person facing a
    bot): read, never locked or created."""
    found = {r.user_id: r.skill for r in Rating.objects.filter(mode=mode, user_id__in=user_ids)}
    return {u: found.get(u, skill.Skill()) for u in user_ids}


def _apply(game: Game, entries: list[Entry]) -> list[RatingChange]:
    """Rate one game (the ledger is locked by the caller). Only the entries that ``move``
    get a new rating and a ``RatingChange``; the others are the fixed reference."""
    moving = [e for e in entries if e.moves]
    ratings = _ratings_locked([e.user_id for e in moving], game.mode)
    fixed = _fixed_skills([e.user_id for e in entries if not e.moves], game.mode)
    before = [ratings[e.user_id].skill if e.moves else fixed[e.user_id] for e in entries]
    after = skill.rate(game.mode, before, [e.place for e in entries])
    changes = []
    for e, old, new in zip(entries, before, after, strict=True):
        if not e.moves:
            continue
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


def _pending(mode: str, up_to: Game | None, since: datetime) -> QuerySet[Game]:
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
        ledger_lock(game.mode)
        since = min(timezone.now(), game.finished_at) - conf.catch_up_window()
        pending = list(_pending(game.mode, game, since))
        bots = bot_ids_among({p.user_id for g in pending for p in g.players.all() if p.user_id})
        for g in pending:
            entries = rated_entries(g, list(g.players.all()), bots)
            if entries is None:
                continue
            done[g.pk] = _apply(g, entries)
        if done:
            ModeLedger.objects.filter(mode=game.mode).update(
                games_rated=F("games_rated") + len(done))
            tables = list(Game.objects.filter(pk__in=list(done), table__isnull=False)
                          .values_list("table_id", flat=True))
            transaction.on_commit(lambda: _republish(tables), robust=True)
    return done


def _republish(table_ids: list[int]) -> None:
    """Ask games for a new version of each table whose game was just rated (its frames then
    carry the changes). A failure is logged: the next snapshot carries them anyway."""
    from games import services as games_services

    for table_id in table_ids:
        try:
            games_services.table_republish(table_id=table_id)
        except Exception:
            log.exception("publishing the ratings of table %s failed", table_id)


def ratings_catch_up() -> int:
    """Rate every pending game of the catch-up window (periodic, in case a task was lost)."""
    count = 0
    for mode in skill.MODES:
        last = _pending(mode, None, timezone.now() - conf.catch_up_window()).last()
        if last is not None:
            count += len(game_rate(game_id=last.pk))
    return count
