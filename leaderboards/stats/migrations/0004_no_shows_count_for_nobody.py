"""A game one of its players never came to (``games.Ending.NO_SHOW``, a tournament's
no-show) counts in nobody's statistics: nothing was played. Such games were stored as
abandoned until ``tournaments.0009`` relabelled them, and counted an abandoned game and the
minutes the table stood open for the absent player. The figures of everyone who sat at one are
counted again from their stored games (the same pure functions as the task and the
rebuild), and their records against each person; everybody else's rows are untouched."""
from importlib import import_module

from django.db import migrations


def recount(apps, schema_editor):
    GamePlayer = apps.get_model("games", "GamePlayer")
    users = set(GamePlayer.objects.filter(game__ending="no_show", user__isnull=False)
                .values_list("user_id", flat=True))
    import_module("leaderboards.stats.migrations.0003_private_games_apart").recount_users(
        apps, users, opponents=True)


class Migration(migrations.Migration):
    dependencies = [("stats", "0003_private_games_apart"), ("tournaments", "0009_no_show_games")]
    operations = [migrations.RunPython(recount, migrations.RunPython.noop)]
