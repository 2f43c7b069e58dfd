"""``python manage.py ratings_rebuild``: replay every rated game in finish order and rebuild
ratings, rating history and leaderboards (docs/ratings.md). Deterministic: the result equals
what the incremental Celery path computed."""
from __future__ import annotations

import time

from django.core.management.base import BaseCommand

from leaderboards.ratings import services


class Command(BaseCommand):
    help = "Rebuild every rating, the rating history and the leaderboards from the rated games."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--no-progress", action="store_true",
                            help="do not draw the progress bar")

    def handle(self, *args, **options) -> None:
        started = time.perf_counter()
        width = 30
        show = not options["no_progress"]

        def progress(done: int, total: int) -> None:
            if not show or not total:
                return
            filled = width * done // total
            self.stdout.write(
                f"\r[{'#' * filled}{'.' * (width - filled)}] {100 * done // total:3d}% "
                f"{done}/{total} games", ending="",
            )
            self.stdout.flush()

        result = services.ratings_rebuild(progress=progress)
        if show:
            self.stdout.write("")
        self.stdout.write(self.style.SUCCESS(
            f"Rebuilt {result['ratings']} ratings from {result['games']} rated games "
            f"({result['changes']} history rows) and the leaderboards in "
            f"{time.perf_counter() - started:.1f} s."
        ))
