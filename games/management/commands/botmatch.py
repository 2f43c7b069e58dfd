"""``python manage.py botmatch``: bot-vs-bot matches on duplicate deals (see docs/bots.md).

The same as ``python -m games.bots.match``; it needs no database.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from games.bots.match import add_arguments, run_from_options


class Command(BaseCommand):
    help = (
        "Play computer opponents against each other on duplicate deals and print win rates "
        "with 95% intervals, points per hand, gin/knock/undercut counts and decision times."
    )
    requires_system_checks: list[str] = []
    requires_migrations_checks = False

    def add_arguments(self, parser) -> None:
        add_arguments(parser)

    def handle(self, *args, **options) -> None:
        try:
            run_from_options(options, self.stdout, self.stderr)
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
