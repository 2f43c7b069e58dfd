"""Build the offline game's engine package from the source (``games/offline_package.py``)."""
from django.core.management.base import BaseCommand

from games import offline_package


class Command(BaseCommand):
    help = ("Zip games/engine, games/bots and games/local (.py only, deterministic) into the "
            "static file the offline game's Pyodide loads (docs/offline.md).")

    def handle(self, *args, **options):
        path, size, written = offline_package.build()
        state = "written" if written else "unchanged"
        if options["verbosity"]:
            self.stdout.write(f"{path} ({size} bytes, {state})")
