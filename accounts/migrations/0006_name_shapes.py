"""What each username and display name looks like with a capital "I" read as the small "l"
it looks like (``core.text.skeleton(..., capital_i=True)``): "aIice" passed for alice. Every
account gets its shapes here, and ``User.save`` keeps them."""
from django.db import migrations, models

from accounts.migrations._looks import fill


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0005_name_looks'),
    ]

    operations = [
        migrations.AddField(
            model_name='user',
            name='display_shape',
            field=models.CharField(blank=True, db_index=True, editable=False, max_length=200),
        ),
        migrations.AddField(
            model_name='user',
            name='username_shape',
            field=models.CharField(blank=True, db_index=True, editable=False, max_length=200),
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
