from django.apps import AppConfig


class LeaderboardsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "leaderboards"
    verbose_name = "Ratings and leaderboards"

    def ready(self):
        from games import hooks

        from . import checks, profile, receivers, selectors

        receivers.connect()
        hooks.register_rated_seat_check(checks.rated_seat_refusal)
        hooks.register_rating_labels(selectors.rating_labels)
        hooks.register_rating_changes(checks.rating_changes)
        hooks.register_unrated_reasons(checks.unrated_reasons)
        profile.register()
