"""Type names shared by the typed modules (``mypy --strict`` on every services package,
[tool.mypy] in pyproject.toml). Names only: nothing here runs."""
from __future__ import annotations

from typing import Any, TypeAlias

# A frame as sent on a socket or built for one: a JSON object (docs/protocol.md).
Frame: TypeAlias = dict[str, Any]
