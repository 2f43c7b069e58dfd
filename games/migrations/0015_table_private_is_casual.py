"""The database holds the rule that a private table is casual (its rows were made casual by
0014_private_tables_casual, in a migration of its own: PostgreSQL refuses to alter a table with updates
pending in the same transaction)."""
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("games", "0014_private_tables_casual")]
    operations = [
        migrations.AddConstraint(
            model_name="table",
            constraint=models.CheckConstraint(
                condition=~(models.Q(private=True) & models.Q(rated=True)),
                name="table_private_is_casual"),
        ),
    ]
