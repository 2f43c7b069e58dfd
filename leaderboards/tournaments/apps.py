from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "leaderboards.tournaments"
    label = "tournaments"
    verbose_name = "Tournaments"

    def ready(self):
        # the services queue the tasks by name: register them in every process
        from . import receivers, sections, tasks  # noqa: F401

        receivers.connect()
        sections.register()
