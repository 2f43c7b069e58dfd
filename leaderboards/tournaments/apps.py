from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "leaderboards.tournaments"
    label = "tournaments"
    verbose_name = "Tournaments"

    def ready(self):
        # the services queue the tasks by name: register them in every process
        from accounts.closing import closing_step_register
        from games import hooks

        from . import receivers, sections, selectors, services, tasks  # noqa: F401

        receivers.connect()
        sections.register()
        # a match's players go back to the tournament: no rematch at its table
        hooks.register_rematch_check(selectors.match_rematch_refusal)
        # while a player's match is in play they sit down among people nowhere else
        hooks.register_busy_check(selectors.match_in_play_refusal)
        # a closing account withdraws from the tournaments it is in
        closing_step_register("tournaments", services.tournaments_leave)
