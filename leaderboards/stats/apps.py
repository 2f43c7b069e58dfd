from django.apps import AppConfig


class StatsConfig(AppConfig):
    name = "leaderboards.stats"
    label = "stats"
    verbose_name = "Statistics"

    def ready(self):
        from . import receivers, sections

        receivers.connect()
        sections.register()
