"""A game that ended early before everyone at it had moved (``stats.facts.aborted``: a
resignation, timeout or abandonment before the first move) counts in nobody's statistics,
as no rating counts it: it had counted a win, a loss and a winning streak while its panel
said "not rated: ended before both players moved". The figures of everyone who sat at a game
that ended early are counted again from their stored games (the same pure functions as the
task and the rebuild), and their records against each person; everybody else's rows are
untouched."""
from importlib import import_module

from django.db import migrations


def recount(apps, schema_editor):
    GamePlayer = apps.get_model("games", "GamePlayer")
    users = set(GamePlayer.objects.filter(game__ending__in=("resignation", "timeout",
                                                            "abandonment"),
                                          user__isnull=False)
                .values_list("user_id", flat=True))
    import_module("leaderboards.stats.migrations.0003_private_games_apart").recount_users(
        apps, users, opponents=True)


class Migration(migrations.Migration):
    dependencies = [("stats", "0004_no_shows_count_for_nobody")]
    operations = [migrations.RunPython(recount, migrations.RunPython.noop)]
