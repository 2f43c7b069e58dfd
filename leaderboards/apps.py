from django.apps import AppConfig


class LeaderboardsConfig(AppConfig):
    name = "leaderboards"
    verbose_name = "Ratings and leaderboards"

    def ready(self):
        from accounts.closing import closing_step_register
        from games import hooks

        from .ratings import (
            answers,
            frames,
            profile,
            receivers,
            selectors,
            services,
            tasks,  # noqa: F401
        )

        receivers.connect()
        hooks.register_rated_seat_check(answers.rated_seat_refusal)
        hooks.register_rating_labels(selectors.rating_labels)
        hooks.register_rating_changes(answers.rating_changes)
        hooks.register_unrated_reasons(answers.unrated_reasons)
        hooks.register_table_ratings(frames.table_ratings)
        hooks.register_seat_ranges(answers.seat_ranges)
        profile.register()
        # a closing account leaves the boards at once (the snapshots leave closed accounts out)
        closing_step_register("leaderboards", services.leaderboards_leave)
