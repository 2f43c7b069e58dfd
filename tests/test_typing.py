"""The engine and the bots pass ``mypy --strict`` (configured under [tool.mypy] in
pyproject.toml; CI runs the same check)."""

from __future__ import annotations

import tomllib
from pathlib import Path

from mypy import api

ROOT = Path(__file__).resolve().parent.parent


def test_the_engine_and_the_bots_are_checked_strictly():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    assert config["strict"] is True
    assert {"games/engine", "games/bots"} <= set(config["files"])


def test_the_engine_and_the_bots_pass_mypy_strict(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    out, err, status = api.run(["--cache-dir", str(tmp_path / "mypy_cache")])
    assert status == 0, out + err
