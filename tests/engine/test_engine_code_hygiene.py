"""The engine and the bots keep no dead code and no private name crosses their modules.

Every function, class, method and module constant of the engine and the bots is used
somewhere besides its own definition: in the site, the tests, the benchmarks, the scripts,
the static files or the docs (a public name the docs describe counts as used).

Read from the text, so a name used only through ``getattr`` or a template must appear there
by name too. A name that is one of Python's protocol methods (``__eq__``...) is not checked.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHECKED = ("games/engine", "games/bots")
SOURCES = (".py", ".js", ".html", ".md", ".txt", ".toml", ".sh", ".cfg")
SKIP_DIRS = {".venv", ".git", "node_modules", "staticfiles", "var", "__pycache__"}


def _texts() -> dict[Path, str]:
    out = {}
    for path in ROOT.rglob("*"):
        rel = path.relative_to(ROOT)
        if path.suffix in SOURCES and not SKIP_DIRS.intersection(rel.parts) and path.is_file():
            out[path] = path.read_text(errors="ignore")
    return out


def _defined(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names = {
        node.name
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    }
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, ast.AnnAssign):
            targets = [node.target]
        names.update(t.id for t in targets if isinstance(t, ast.Name))
    return {n for n in names if not (n.startswith("__") and n.endswith("__"))}


def _unused() -> list[str]:
    texts = _texts()
    words = Counter(w for text in texts.values() for w in re.findall(r"\w+", text))
    found = []
    for folder in CHECKED:
        for path in sorted((ROOT / folder).glob("*.py")):
            for name in sorted(_defined(path)):
                own_all = len(re.findall(rf"[\"']{re.escape(name)}[\"']", texts[path]))
                if words[name] - own_all <= 1:  # the definition itself (and its __all__ entry)
                    found.append(f"{path.relative_to(ROOT)}: {name}")
    return found


def test_no_dead_code_in_the_engine_or_the_bots():
    assert _unused() == []


def test_no_private_name_is_imported_from_another_module():
    """What one module of the engine or the bots takes from another is public (no ``_``)."""
    found = []
    for folder in CHECKED:
        for path in sorted((ROOT / folder).glob("*.py")):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.ImportFrom) and node.module != "__future__":
                    found += [
                        f"{path.relative_to(ROOT)}: {node.module}.{alias.name}"
                        for alias in node.names
                        if alias.name.startswith("_")
                    ]
    assert found == []
