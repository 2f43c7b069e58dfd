"""What each username and display name looks like (``core.text.skeleton``), stored so that a
name drawn like another player's is refused whichever came first; every account gets its
looks here, and ``User.save`` keeps them."""
from django.db import migrations, models


def fill(apps, schema_editor):
    from core.text import skeleton

    User = apps.get_model("accounts", "User")
    batch = []
    for user in User.objects.only("pk", "username", "display_name").iterator(chunk_size=1000):
        user.username_look = skeleton(user.username)[:200]
        user.display_look = skeleton(user.display_name)[:200] if user.display_name else ""
        batch.append(user)
        if len(batch) == 1000:
            User.objects.bulk_update(batch, ["username_look", "display_look"])
            batch = []
    User.objects.bulk_update(batch, ["username_look", "display_look"])


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0004_bots_and_tokens'),
    ]

    operations = [
        migrations.AddField(
            model_name='user',
            name='display_look',
            field=models.CharField(blank=True, db_index=True, editable=False, max_length=200),
        ),
        migrations.AddField(
            model_name='user',
            name='username_look',
            field=models.CharField(blank=True, db_index=True, editable=False, max_length=200),
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
