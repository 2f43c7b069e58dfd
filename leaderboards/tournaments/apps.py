from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "leaderboards.tournaments"
    label = "tournaments"
    verbose_name = "Tournaments"

    def ready(self):
        from accounts.profile_sections import ProfileSection, profile_section_register

        # the services queue the tasks by name: register them in every process
        from . import receivers, selectors, tasks  # noqa: F401

        receivers.connect()
        profile_section_register(ProfileSection(
            key="tournaments", title="Tournaments",
            template_name="tournaments/_profile.html",
            get_context=lambda *, profile_user, viewer: {
                "results": selectors.user_results(profile_user)},
            order=40,
        ))
