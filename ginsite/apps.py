"""App configuration of the project package."""
from django.contrib.staticfiles.apps import StaticFilesConfig


class GinStaticFilesConfig(StaticFilesConfig):
    """collectstatic leaves out what only the test suite uses: the JS unit tests and the
    vendored axe-core (tests/ui injects it into pages itself), so users are never sent them."""

    ignore_patterns = [*StaticFilesConfig.ignore_patterns, "tests", "package.json", "axe-core"]
