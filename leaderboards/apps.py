from django.apps import AppConfig


class LeaderboardsConfig(AppConfig):
    name = "leaderboards"
    verbose_name = "Ratings and leaderboards"

    def ready(self):
        from games import hooks

        from .ratings import answers, frames, profile, receivers, selectors, tasks  # noqa: F401

        receivers.connect()
        hooks.register_rated_seat_check(answers.rated_seat_refusal)
        hooks.register_rating_labels(selectors.rating_labels)
        hooks.register_rating_changes(answers.rating_changes)
        hooks.register_unrated_reasons(answers.unrated_reasons)
        hooks.register_table_ratings(frames.table_ratings)
        profile.register()
