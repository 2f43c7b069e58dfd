from django.apps import AppConfig


class StatsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "leaderboards.stats"
    label = "stats"
    verbose_name = "Statistics"

    def ready(self):
        from . import receivers, sections

        receivers.connect()
        sections.register()
