"""Every account's looks and shapes written again (``core.text.skeleton``): a small "l" among
capitals now reads as the capital "I" it looks like ("ALlCE" passed for alice), and the
Cyrillic soft sign as the "b" it looks like ("Ьob" passed for bob)."""
from django.db import migrations

from accounts.migrations._looks import fill


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0007_name_shapes_unmarked'),
    ]

    operations = [
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
