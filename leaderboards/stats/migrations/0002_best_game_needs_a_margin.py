"""A win with no margin (a resignation at level scores, or from behind) is no longer anyone's
"Best game". Where a row's best margin is 0 or less, it never had a win on points (the best
is the largest), so clearing it is exact."""
from django.db import migrations


def clear(apps, schema_editor):
    PlayerStats = apps.get_model("stats", "PlayerStats")
    PlayerStats.objects.filter(best_margin__lte=0).update(best_margin=None, best_game=None)


class Migration(migrations.Migration):
    dependencies = [("stats", "0001_initial")]
    operations = [migrations.RunPython(clear, migrations.RunPython.noop)]
