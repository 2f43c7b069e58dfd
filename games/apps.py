from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"

    def ready(self):
        from accounts.activity import activity_check_register
        from accounts.closing import closing_check_register, closing_step_register
        from accounts.profile_sections import ProfileSection, profile_section_register

        # The services queue these tasks by name: register them in every process.
        from . import selectors, services, tasks  # noqa: F401

        # accounts sits below games: games adds its section to the profile page
        profile_section_register(ProfileSection(
            key="recent-games", title="Recent games",
            template_name="games/_profile_recent_games.html",
            get_context=lambda *, profile_user, viewer: {
                "games": [
                    (gp, selectors.game_summary(gp))
                    for gp in selectors.archive_games(player=profile_user, viewer=viewer)[:5]
                ],
            },
            order=38,
        ))
        # only an account with no games may become a bot (docs/bot-api.md)
        activity_check_register("games", selectors.user_has_games)
        # an account closes between games, and leaves the tables where it waits
        closing_check_register("games", services.games_in_play)
        closing_step_register("games", services.games_leave)
