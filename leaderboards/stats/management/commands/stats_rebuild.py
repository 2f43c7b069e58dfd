"""``manage.py stats_rebuild``: count every finished game again, with a progress bar."""
from __future__ import annotations

import sys
import time

from django.core.management.base import BaseCommand, CommandError

from leaderboards.stats.services import RebuildRunning, stats_rebuild


class Command(BaseCommand):
    help = "Forget all player statistics and count every finished game again."

    def add_arguments(self, parser):
        parser.add_argument("--batch", type=int, default=500,
                            help="games read per query (default 500)")
        parser.add_argument("--no-progress", action="store_true",
                            help="no progress bar (for logs)")

    def handle(self, *args, batch: int, no_progress: bool, **options):
        start = time.monotonic()
        err = self.stderr
        tty = sys.stderr.isatty()

        def bar(done: int, total: int) -> None:
            if no_progress:
                return
            width = 30
            frac = done / total if total else 1.0
            filled = int(width * frac)
            line = f"[{'#' * filled}{'.' * (width - filled)}] {done}/{total} games"
            if tty:
                err.write("\r" + line, ending="")
            else:
                err.write(line)
            err.flush()

        try:
            done = stats_rebuild(progress=bar, batch=max(1, batch))
        except RebuildRunning as exc:
            raise CommandError(f"{exc}; try again when it has finished.") from None
        if tty and not no_progress:
            err.write("")
        self.stdout.write(self.style.SUCCESS(
            f"Counted {done} games in {time.monotonic() - start:.1f} s."
        ))
