"""The database holds the rule that a private tournament is casual (its rows were made casual by
0004_private_tournaments_casual, in a migration of its own: PostgreSQL refuses to alter a table with updates
pending in the same transaction)."""
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("tournaments", "0004_private_tournaments_casual")]
    operations = [
        migrations.AddConstraint(
            model_name="tournament",
            constraint=models.CheckConstraint(
                condition=~(models.Q(private=True) & models.Q(rated=True)),
                name="tournament_private_is_casual"),
        ),
    ]
