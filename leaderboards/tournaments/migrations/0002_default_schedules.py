"""The repeating tournaments every deployment gets: an hourly Classic arena and a daily Swiss
(staff can change or switch them off in the admin)."""
from datetime import timedelta

from django.db import migrations
from django.utils import timezone

SCHEDULES = [
    {"name": "Hourly Classic Arena", "mode": "classic", "format": "arena", "capacity": 200,
     "duration_minutes": 45, "seconds_per_turn": 30, "every_hours": 1, "entry_minutes": 55},
    {"name": "Daily Classic Swiss", "mode": "classic", "format": "swiss", "capacity": 64,
     "rounds": 5, "seconds_per_turn": 30, "every_hours": 24, "entry_minutes": 12 * 60},
]


def create(apps, schema_editor):
    schedule = apps.get_model("tournaments", "TournamentSchedule")
    now = timezone.now().replace(minute=0, second=0, microsecond=0)
    for data in SCHEDULES:
        if schedule.objects.filter(name=data["name"]).exists():
            continue
        if data["every_hours"] == 24:
            start = now.replace(hour=18)
            if start <= timezone.now():
                start += timedelta(days=1)
        else:
            start = now + timedelta(hours=1)
        schedule.objects.create(next_start=start, **data)


class Migration(migrations.Migration):
    dependencies = [("tournaments", "0001_initial")]
    operations = [migrations.RunPython(create, migrations.RunPython.noop)]
