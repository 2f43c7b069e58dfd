"""What each username and display name looks like (``core.text.skeleton``), stored so that a
name drawn like another player's is refused whichever came first; every account gets its
looks here, and ``User.save`` keeps them."""
from django.db import migrations, models

from accounts.migrations._looks import fill


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
