from django.db import migrations

from games.rooms import ensure_default_rooms


def create_rooms(apps, schema_editor):
    ensure_default_rooms(apps.get_model("games", "Room"))


class Migration(migrations.Migration):
    dependencies = [("games", "0001_initial")]

    operations = [migrations.RunPython(create_rooms, migrations.RunPython.noop)]
