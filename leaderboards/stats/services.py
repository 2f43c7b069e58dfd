"""Writes of the statistics: count one finished game (idempotent), or rebuild everything."""
from __future__ import annotations

from collections.abc import Callable

from django.db import IntegrityError, transaction
from django.db.models import Prefetch

from core.locks import lease
from games.models import Game, GamePlayer

from .facts import PlayerFacts, accumulate, count_result, game_facts
from .models import ALL_MODES, GameFacts, Opponent, PlayerStats


def _facts_row(f: PlayerFacts) -> GameFacts:
    return GameFacts(
        game_id=f.game_id, user_id=f.user_id, mode=f.mode, opponents=f.opponents,
        finished_at=f.finished_at, result=f.result, hands_played=f.hands_played,
        hand_points=f.hand_points,
    )


# held while stats_rebuild runs: the task waits for it (see tasks.game_record). Not a
# periodic job, so a lease renewed after every batch (a batch takes about a second): a killed
# rebuild holds the tasks up for two minutes, not six hours.
REBUILD_LOCK = "stats:rebuild-lock"
REBUILD_LEASE_SECONDS = 120

# what the statistics never read (the record alone is most of a game's bytes)
UNREAD = ("record", "settings", "final")


def _load_game(game_id: int) -> Game | None:
    return (
        Game.objects.filter(pk=game_id).defer(*UNREAD)
        .prefetch_related(Prefetch("players", queryset=GamePlayer.objects.order_by("seat")))
        .first()
    )


def stats_game_record(*, game_id: int) -> bool:
    """Count a finished game in its players' statistics. Safe to run twice (and at once):
    a game already in the ledger (``GameFacts``) is skipped. True when it was counted."""
    game = _load_game(game_id)
    if game is None:
        return False
    facts = game_facts(game, list(game.players.all()))
    if not facts:
        return False
    try:
        with transaction.atomic():
            # the ledger rows first: a second run (or a concurrent one) fails here and
            # rolls back without touching the counters
            GameFacts.objects.bulk_create([_facts_row(f) for f in facts])
            for f in sorted(facts, key=lambda f: f.user_id):  # one lock order for everyone
                for mode in (f.mode, ALL_MODES):
                    PlayerStats.objects.get_or_create(
                        user_id=f.user_id, mode=mode, opponents=f.opponents
                    )
                    row = PlayerStats.objects.select_for_update().get(
                        user_id=f.user_id, mode=mode, opponents=f.opponents
                    )
                    accumulate(row, f)
                    row.save()
                for other_id, result in sorted(f.people):
                    Opponent.objects.get_or_create(user_id=f.user_id, opponent_id=other_id)
                    opp = Opponent.objects.select_for_update().get(
                        user_id=f.user_id, opponent_id=other_id
                    )
                    count_result(opp, result, f.finished_at)
                    opp.save()
    except IntegrityError:
        return False
    return True


class RebuildRunning(RuntimeError):
    """Another stats_rebuild holds the lock."""


def stats_rebuild(*, progress: Callable[[int, int], None] | None = None,
                  batch: int = 500) -> int:
    """Forget every statistic and count every finished game again, in finishing order.
    Returns the number of games read. ``progress(done, total)`` is called along the way.
    Holds a cache lock meanwhile: a second rebuild is refused, and games that finish in
    the meantime are counted after it (their tasks wait)."""
    with lease(REBUILD_LOCK, REBUILD_LEASE_SECONDS) as held:
        if not held.held:
            raise RebuildRunning("a statistics rebuild is already running")
        return _rebuild(progress, batch, held.renew)


def _rebuild(progress: Callable[[int, int], None] | None, batch: int,
             alive: Callable[[], None] = lambda: None) -> int:
    games = Game.objects.order_by("finished_at", "pk")
    total = games.count()
    rows: dict[tuple[int, str, str], PlayerStats] = {}
    opponents: dict[tuple[int, int], Opponent] = {}
    ledger: list[GameFacts] = []
    done = 0
    with transaction.atomic():
        GameFacts.objects.all().delete()
        PlayerStats.objects.all().delete()
        Opponent.objects.all().delete()
        ids = list(games.values_list("pk", flat=True))
        for start in range(0, len(ids), batch):
            chunk = (
                Game.objects.filter(pk__in=ids[start:start + batch]).defer(*UNREAD)
                .order_by("finished_at", "pk")
                .prefetch_related(
                    Prefetch("players", queryset=GamePlayer.objects.order_by("seat"))
                )
            )
            for game in chunk:
                for f in game_facts(game, list(game.players.all())):
                    ledger.append(_facts_row(f))
                    for mode in (f.mode, ALL_MODES):
                        key = (f.user_id, mode, f.opponents)
                        row = rows.get(key)
                        if row is None:
                            row = rows[key] = PlayerStats(
                                user_id=f.user_id, mode=mode, opponents=f.opponents
                            )
                        accumulate(row, f)
                    for other_id, result in f.people:
                        opp = opponents.get((f.user_id, other_id))
                        if opp is None:
                            opp = opponents[(f.user_id, other_id)] = Opponent(
                                user_id=f.user_id, opponent_id=other_id
                            )
                        count_result(opp, result, f.finished_at)
                done += 1
            GameFacts.objects.bulk_create(ledger, batch_size=1000)
            ledger = []
            alive()
            if progress:
                progress(done, total)
        PlayerStats.objects.bulk_create(rows.values(), batch_size=1000)
        Opponent.objects.bulk_create(opponents.values(), batch_size=1000)
    if progress and total == 0:
        progress(0, 0)
    return done
