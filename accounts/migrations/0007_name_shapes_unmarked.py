"""Every account's shapes written again (``core.text.skeleton(..., capital_i=True)``): the
shape now also takes off accents and strokes, since "ałice" and "álice" passed for alice."""
from django.db import migrations

from accounts.migrations._looks import fill


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0006_name_shapes'),
    ]

    operations = [
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
