"""A private table is casual (a rating is public, and its change would show that the players
met): tables opened private and rated before the rule are made casual, then the database
holds the rule. Games already played and rated keep their rating changes (docs/ratings.md,
"Private games")."""
from django.db import migrations


def casual(apps, schema_editor):
    Table = apps.get_model("games", "Table")
    Table.objects.filter(private=True, rated=True).update(rated=False, rating_range=None)


class Migration(migrations.Migration):
    dependencies = [("games", "0013_offline_deal_once")]
    operations = [migrations.RunPython(casual, migrations.RunPython.noop)]
