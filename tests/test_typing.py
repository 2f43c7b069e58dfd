"""The engine, the bots and every services package pass ``mypy --strict`` (configured under
[tool.mypy] in pyproject.toml, with django-stubs' plugin for Django's types; CI runs the same
check)."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

import pytest
from mypy import api

ROOT = Path(__file__).resolve().parent.parent

APPS = ("core", "accounts", "games", "social", "leaderboards")
STRICT = {
    "games/engine",
    "games/bots",
    "games/services",
    "social/services",
    "leaderboards/ratings/services",
    "leaderboards/tournaments/services",
    "leaderboards/stats/services.py",
    "accounts/services",
}


def _config() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]


def test_the_engine_the_bots_and_every_services_package_are_checked_strictly():
    config = _config()
    assert config["strict"] is True
    assert STRICT <= set(config["files"])
    assert "mypy_django_plugin.main" in config["plugins"]
    # Every services package there is: a new one is added to [tool.mypy] files.
    found = {
        str(path.relative_to(ROOT))
        for app in APPS
        for path in (*(ROOT / app).glob("**/services"), *(ROOT / app).glob("**/services.py"))
        if "migrations" not in path.parts
    }
    assert found <= set(config["files"]), found - set(config["files"])
    for path in config["files"]:
        assert (ROOT / path).exists(), path


def test_the_checked_code_passes_mypy_strict(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    out, err, status = api.run(["--cache-dir", str(tmp_path / "mypy_cache")])
    assert status == 0, out + err


@pytest.mark.parametrize("source, error", [
    # strict: a service without annotations
    ("def block(user, target):\n    return None\n", "[no-untyped-def]"),
    # the plugin: a manager's first() may be None, a model field has its type
    ("from social.models import Block\n\n\ndef first() -> Block:\n"
     "    return Block.objects.first()\n", "[return-value]"),
    ("from social.models import Block\n\n\ndef name(b: Block) -> int:\n"
     "    return b.blocker.username\n", "[return-value]"),
])
def test_the_same_configuration_refuses_an_error(tmp_path, monkeypatch, source, error):
    """The check can fail: the project's configuration (strict, django-stubs' plugin on the
    project's settings, no DATABASE_URL needed) reports an error in a module written here."""
    monkeypatch.chdir(ROOT)
    module = tmp_path / "typing_probe.py"
    module.write_text("from __future__ import annotations\n\n" + source)
    out, err, status = api.run(
        ["--cache-dir", str(tmp_path / "mypy_cache"), str(module)]
    )
    assert status == 1, out + err
    assert error in out, out + err
    assert "typing_probe.py" in out


def test_the_plugin_needs_no_database_or_redis(tmp_path):
    """django-stubs' plugin loads the settings in both CI passes: without DATABASE_URL and
    REDIS_URL (the embedded default) as well as with them."""
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    module = tmp_path / "typing_probe.py"
    module.write_text("from social.models import Block\n\n\n"
                      "def count() -> int:\n    return Block.objects.count()\n")
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "c"), str(module)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )
    assert run.returncode == 0, run.stdout + run.stderr
