from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "leaderboards.tournaments"
    label = "tournaments"
    verbose_name = "Tournaments"

    def ready(self):
        from . import receivers

        receivers.connect()
