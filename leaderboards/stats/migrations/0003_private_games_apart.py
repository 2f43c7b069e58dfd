"""Games at private tables move to a bucket of their own (``opponents="private"``), read by
the player alone: until now they counted in the figures everyone sees ("people" or a
computer level), so two profiles compared before and after could tell that a private game
was played, and who won it. The figures of every player who has a private game are counted
again from their stored games, in finishing order (the same pure functions as the task and
the rebuild); everybody else's rows are untouched."""
from django.db import migrations
from django.db.models import Prefetch


def recount(apps, schema_editor):
    GamePlayer = apps.get_model("games", "GamePlayer")
    recount_users(apps, set(GamePlayer.objects.filter(private=True, user__isnull=False)
                            .values_list("user_id", flat=True)))


def recount_users(apps, users, opponents=False):
    """Count the figures of ``users`` (ids) again from their stored games, and with
    ``opponents`` their records against each person too (later migrations call it)."""
    from leaderboards.stats.facts import accumulate, count_result, game_facts

    Game = apps.get_model("games", "Game")
    GamePlayer = apps.get_model("games", "GamePlayer")
    PlayerStats = apps.get_model("stats", "PlayerStats")
    GameFacts = apps.get_model("stats", "GameFacts")
    if not users:
        return
    PlayerStats.objects.filter(user_id__in=users).delete()
    GameFacts.objects.filter(user_id__in=users).delete()
    Opponent = apps.get_model("stats", "Opponent")
    if opponents:
        Opponent.objects.filter(user_id__in=users).delete()
    rows = {}
    against = {}
    ledger = []
    ids = set(GamePlayer.objects.filter(user_id__in=users).values_list("game_id", flat=True))
    games = (Game.objects.filter(pk__in=ids).defer("record", "settings", "final")
             .order_by("finished_at", "pk")
             .prefetch_related(Prefetch("players", queryset=GamePlayer.objects.order_by("seat"))))
    for game in games.iterator(chunk_size=500):
        for f in game_facts(game, list(game.players.all())):
            if f.user_id not in users:
                continue
            ledger.append(GameFacts(
                game_id=f.game_id, user_id=f.user_id, mode=f.mode, opponents=f.opponents,
                finished_at=f.finished_at, result=f.result, hands_played=f.hands_played,
                hand_points=f.hand_points))
            for mode in (f.mode, "all"):
                key = (f.user_id, mode, f.opponents)
                if key not in rows:
                    rows[key] = PlayerStats(user_id=f.user_id, mode=mode, opponents=f.opponents)
                accumulate(rows[key], f)
            for other_id, result in f.people if opponents else ():
                if (f.user_id, other_id) not in against:
                    against[f.user_id, other_id] = Opponent(user_id=f.user_id,
                                                            opponent_id=other_id)
                count_result(against[f.user_id, other_id], result, f.finished_at)
    GameFacts.objects.bulk_create(ledger, batch_size=1000)
    PlayerStats.objects.bulk_create(rows.values(), batch_size=1000)
    Opponent.objects.bulk_create(against.values(), batch_size=1000)


class Migration(migrations.Migration):
    dependencies = [("stats", "0002_best_game_needs_a_margin"), ("games", "0013_offline_deal_once")]
    operations = [migrations.RunPython(recount, migrations.RunPython.noop)]
