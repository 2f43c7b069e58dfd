"""The site's source as the structure tests read it (tests/test_layers.py and the apps' module
tests): a file's module name, and the module a ``from ... import`` in it reads from."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def module_name(path: Path) -> str:
    """``games/services/__init__.py`` -> ``games.services``."""
    return ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")


def imported_from(module: str, path: Path, node: ast.ImportFrom) -> str:
    """The absolute name of the module that ``node``, a ``from ... import`` in ``module`` (the
    file ``path``), reads from: a relative import resolved against the module's package."""
    base = node.module or ""
    if node.level:
        package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
        up = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
        base = f"{up}.{base}" if base else up
    return base
