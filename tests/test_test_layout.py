"""The tests' own layout: shared helpers live in ``tests/support`` (by concern: tables,
records, servers, workers, browser, sockets, protocol, ...); conftests hold only fixtures
(and pytest hooks); no test module imports from another test module, a conftest, or any
other ``tests`` module outside ``tests/support``."""
from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent
SUPPORT = TESTS / "support"


def _modules():
    for path in sorted(TESTS.rglob("*.py")):
        if SUPPORT in path.parents:
            continue
        yield path


def _package_of(path: Path) -> list[str]:
    return list(path.relative_to(TESTS.parent).parent.parts)


def _imported(path: Path, tree: ast.Module):
    """Each module name this file imports, made absolute."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = _package_of(path)[: len(_package_of(path)) - (node.level - 1)]
                name = ".".join(base + ([node.module] if node.module else []))
                if node.module is None:  # ``from . import x``: x is a module
                    for alias in node.names:
                        yield node.lineno, f"{name}.{alias.name}"
                    continue
                yield node.lineno, name
            elif node.module:
                yield node.lineno, node.module


def test_tests_import_shared_helpers_only_from_tests_support():
    wrong = []
    for path in _modules():
        tree = ast.parse(path.read_text(), str(path))
        for line, name in _imported(path, tree):
            parts = name.split(".")
            if parts[0] != "tests" or len(parts) == 1:
                continue
            if parts[1] != "support":
                wrong.append(f"{path.relative_to(TESTS.parent)}:{line} imports {name}")
    assert not wrong, "import shared helpers from tests.support:\n" + "\n".join(wrong)


def _is_fixture(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    for deco in node.decorator_list:
        target = deco.func if isinstance(deco, ast.Call) else deco
        if ast.unparse(target) in ("pytest.fixture", "fixture"):
            return True
    return False


def test_conftests_hold_only_fixtures_and_hooks():
    helpers = []
    for path in _modules():
        if path.name != "conftest.py":
            continue
        for node in ast.parse(path.read_text(), str(path)).body:
            if isinstance(node, ast.ClassDef):
                helpers.append(f"{path.relative_to(TESTS.parent)}:{node.lineno} class {node.name}")
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if not (_is_fixture(node) or node.name.startswith("pytest_")):
                    helpers.append(f"{path.relative_to(TESTS.parent)}:{node.lineno} {node.name}")
    assert not helpers, "move these helpers to tests/support:\n" + "\n".join(helpers)


def test_the_support_package_imports_no_test_module():
    wrong = []
    for path in sorted(SUPPORT.rglob("*.py")):
        for line, name in _imported(path, ast.parse(path.read_text(), str(path))):
            parts = name.split(".")
            if parts[0] == "tests" and (len(parts) == 1 or parts[1] != "support"):
                wrong.append(f"{path.relative_to(TESTS.parent)}:{line} imports {name}")
    assert not wrong, "\n".join(wrong)


def test_benchmarks_and_scripts_run_in_servers_import_only_tests_support():
    """The benchmarks reuse the browser and server helpers, and some tests hand
    ``manage.py shell`` a script as text: those imports, too, name tests.support only."""
    import re

    old = re.compile(r"^\s*(?:from|import)\s+tests\.(?!support\b)[\w.]+", re.MULTILINE)
    wrong = []
    for path in sorted([*_modules(), *(TESTS.parent / "bench").rglob("*.py")]):
        for match in old.finditer(path.read_text()):
            line = path.read_text().count("\n", 0, match.start()) + 1
            wrong.append(f"{path.relative_to(TESTS.parent)}:{line} {match.group(0).strip()}")
    assert not wrong, "import shared helpers from tests.support:\n" + "\n".join(wrong)
