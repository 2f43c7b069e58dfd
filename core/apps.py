from django.apps import AppConfig


class CoreConfig(AppConfig):
    """The ground floor as an app only so that its URL converter is registered once, before
    any URL module (every app's, and the table socket's routes) is read."""

    name = "core"
    verbose_name = "Core"

    def ready(self) -> None:
        from .urlids import register_id_converter

        register_id_converter()
