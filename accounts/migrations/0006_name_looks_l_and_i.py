"""The looks of every username and display name again: ``core.text.skeleton`` now reads a
small "l" and a capital "I" as one letter ("aIice" passed for alice), so the stored looks of
the names made before are written anew, and a new name is compared with them as it looks."""
from django.db import migrations

from accounts.migrations._looks import fill


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0005_name_looks'),
    ]

    operations = [
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
