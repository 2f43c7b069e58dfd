"""A private tournament's games are casual, as every private game (docs/ratings.md)."""
from django.db import migrations


def casual(apps, schema_editor):
    Tournament = apps.get_model("tournaments", "Tournament")
    Tournament.objects.filter(private=True, rated=True).update(rated=False)


class Migration(migrations.Migration):
    dependencies = [("tournaments", "0003_entry_provisional")]
    operations = [migrations.RunPython(casual, migrations.RunPython.noop)]
