from django.apps import AppConfig


class SocialConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "social"
    verbose_name = "Contacts and messages"

    def ready(self):
        from . import receivers

        receivers.connect()
