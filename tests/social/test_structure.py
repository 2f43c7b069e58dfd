"""The social app keeps the shape of games (docs/social.md, docs/architecture.md): modules of
at most ~400 lines, a services package by concern used through the names it exports, one
builder of the JSON frames, public names for what crosses modules, and no dead code."""
from __future__ import annotations

import ast
import re
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOCIAL = ROOT / "social"
MODULES = sorted(p for p in SOCIAL.rglob("*.py") if "migrations" not in p.parts)
MAX_LINES = 400


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text())


def test_no_module_is_over_400_lines():
    long = {str(p.relative_to(ROOT)): n for p in MODULES
            if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert long == {}


def test_services_is_a_package_used_through_its_names():
    from social import services

    package = SOCIAL / "services"
    assert (package / "__init__.py").exists()
    assert {"contacts", "blocks", "messages", "invitations"} <= {
        p.stem for p in package.glob("*.py")}
    defined = {
        node.name
        for path in package.glob("*.py") if path.name != "__init__.py"
        for node in _tree(path).body
        if isinstance(node, ast.FunctionDef | ast.ClassDef) and not node.name.startswith("_")
        # the after-commit sender and the answered rows' helpers stay inside the package
        and path.stem not in ("publish", "rows")
    }
    assert defined - {"policy_check"} <= set(services.__all__)
    assert all(hasattr(services, name) for name in services.__all__)
    # Nothing outside the package reaches into its modules.
    for path in ROOT.glob("**/*.py"):
        if ".venv" in path.parts or package in path.parents:
            continue
        text = path.read_text(errors="ignore")
        assert not re.search(r"social\.services\.\w+ import|from social\.services\.", text), path


def _frame_literals(path: Path) -> list[int]:
    """Lines of dict literals with a ``"type"`` key: a frame built inline."""
    return [
        node.lineno for node in ast.walk(_tree(path))
        if isinstance(node, ast.Dict)
        and any(isinstance(k, ast.Constant) and k.value == "type" for k in node.keys)
    ]


def test_frames_are_built_in_social_frames_only():
    # The socket layer is apart: social/consumers.py's own frames (hello, pong, ack, error)
    # and social/notify.py's channel-layer envelope move to the shared floor (core/).
    socket_layer = ("frames.py", "consumers.py", "notify.py")
    inline = {str(p.relative_to(ROOT)): lines for p in MODULES
              if p.name not in socket_layer and (lines := _frame_literals(p))}
    assert inline == {}
    assert _frame_literals(SOCIAL / "frames.py")


def test_no_private_name_is_imported_from_another_module():
    found = []
    for path in MODULES:
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.ImportFrom):
                found += [(str(path.relative_to(ROOT)), node.lineno, a.name)
                          for a in node.names if a.name.startswith("_")
                          and a.name != "__future__"]
    assert found == []


def _repo_text() -> str:
    skip = {".venv", "node_modules", "staticfiles", ".git", "vendor", "migrations"}
    parts = []
    for suffix in ("*.py", "*.js", "*.html", "*.txt"):
        for path in ROOT.glob(f"**/{suffix}"):
            if not skip & set(path.relative_to(ROOT).parts):
                parts.append(path.read_text(errors="ignore"))
    return "\n".join(parts)


def test_every_public_function_is_used_somewhere():
    """Dead code: a public top-level function of social that nothing in the repository
    (code, tests, templates, scripts) names besides its own definition. Decorated functions
    (views, tasks, template tags) are reached through their decorators."""
    # How often each word occurs (a name is a whole word: the count of ``\bname\b`` in the
    # text), counted once instead of one regular-expression search of the whole repository
    # per function (6.7 s).
    words = Counter(re.findall(r"\w+", _repo_text()))
    unused = []
    for path in MODULES:
        for node in _tree(path).body:
            if (isinstance(node, ast.FunctionDef) and not node.name.startswith("_")
                    and not node.decorator_list):
                if words[node.name] < 2:
                    unused.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}")
    assert unused == []


def test_no_long_function_in_the_social_script():
    """static/js/social.js: each top-level function at most 60 lines (a page's setup calls
    named helpers for its parts; behaviour is the browser test's)."""
    lines = (ROOT / "static" / "js" / "social.js").read_text().splitlines()
    long, start = {}, None
    for number, line in enumerate(lines, 1):
        if re.match(r"(export )?(async )?function \w+", line):
            start, name = number, line.split("(")[0].split()[-1]
        elif line == "}" and start is not None:
            if number - start + 1 > 60:
                long[name] = number - start + 1
            start = None
    assert long == {}
