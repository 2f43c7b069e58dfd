"""The shape of the leaderboards app (docs/architecture.md, docs/ratings.md "Modules"): three
parts (ratings, stats, tournaments) around the shared models, small modules, ratings' writes
a services package used through its exported names, and no table frame built or sent from
leaderboards (the games app's versioned frames carry the ratings)."""
from __future__ import annotations

import ast
from pathlib import Path

from leaderboards.ratings import services
from tests.support.source import imported_from, module_name

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "leaderboards"
SOURCES = [p for p in APP.rglob("*.py") if "migrations" not in p.parts]


def test_no_module_is_over_400_lines():
    long = {str(p.relative_to(ROOT)): n for p in SOURCES
            if (n := len(p.read_text().splitlines())) > 400}
    assert long == {}


def test_the_root_holds_the_shared_parts_and_three_packages():
    """Models, the app config and the URLconf stay at the app's root (no model moved), with
    what Django looks for there (migrations, commands, template tags); the rest is a part."""
    root = sorted(p.name for p in APP.iterdir() if p.name != "__pycache__")
    assert root == ["__init__.py", "apps.py", "management", "migrations", "models.py",
                    "ratings", "stats", "templatetags", "tournaments", "urls.py"]


def _imported(path: Path) -> set[str]:
    module = module_name(path)
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = imported_from(module, path, node)
            out.add(base)
            out.update(f"{base}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return out


def test_ratings_services_are_used_through_the_package():
    inner = APP / "ratings" / "services"
    callers = [p for top in ("accounts", "bench", "games", "ginsite", "leaderboards", "social",
                             "tests") for p in (ROOT / top).rglob("*.py")
               if inner not in p.parents and "migrations" not in p.parts]
    bad = {str(p.relative_to(ROOT)): sorted(m for m in _imported(p)
                                            if m.startswith("leaderboards.ratings.services."))
           for p in callers}
    assert {k: v for k, v in bad.items() if v} == {}
    assert {"game_rate", "playban_record", "leaderboard_compute", "ratings_rebuild",
            "ratings_catch_up"} <= set(services.__all__)


def test_leaderboards_never_builds_or_sends_a_table_frame():
    """Ratings reach a table only in the games app's versioned frames: nothing in
    leaderboards sends to a table's group, and the table socket forwards no ratings frame."""
    offenders = sorted(str(p.relative_to(ROOT)) for p in SOURCES
                       if {"games.broadcast", "games.frames", "core.channels"} & _imported(p))
    assert offenders == []
    consumer = ast.parse((ROOT / "games" / "consumers.py").read_text())
    handlers = {n.name for n in ast.walk(consumer) if isinstance(n, ast.AsyncFunctionDef)}
    assert "table_ratings" not in handlers
