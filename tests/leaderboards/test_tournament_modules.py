"""The shape of the tournaments app (docs/tournaments.md, "Modules"): small modules, public
names across them, one format module per format behind one interface, pure pairing."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from leaderboards.tournaments.formats import FORMATS, TournamentFormat, format_for
from leaderboards.tournaments.models import Format
from tests.support.source import imported_from, module_name

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "leaderboards" / "tournaments"
PACKAGE = "leaderboards.tournaments"
SOURCES = [p for p in APP.rglob("*.py") if "migrations" not in p.parts]


def _imports(path: Path) -> list[tuple[str, list[str]]]:
    """``(module, names)`` of every ``from ... import`` in ``path``, relative ones resolved."""
    module = module_name(path)
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = imported_from(module, path, node)
            out.append((base, [a.name for a in node.names]))
    return out


def test_no_module_is_over_400_lines():
    long = {str(p.relative_to(ROOT)): n for p in SOURCES
            if (n := len(p.read_text().splitlines())) > 400}
    assert long == {}


def _callers() -> list[Path]:
    found = []
    for top in ("accounts", "bench", "core", "games", "ginsite", "leaderboards", "social",
                "tests"):
        for p in (ROOT / top).rglob("*.py"):
            if "migrations" not in p.parts and PACKAGE in p.read_text():
                found.append(p)
    return found + SOURCES


def test_no_private_name_crosses_amodule_name():
    """Nothing takes a ``_name`` from a tournaments module, by import or by attribute."""
    bad = []
    for path in set(_callers()):
        tree = ast.parse(path.read_text())
        aliases = set()
        for base, names in _imports(path):
            if not base.startswith(PACKAGE):
                continue
            bad += [f"{path.relative_to(ROOT)}: {base}.{n}" for n in names if n.startswith("_")]
            aliases.update(names)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                aliases.update(a.asname or a.name for a in node.names
                               if a.name.startswith(PACKAGE))
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and node.attr.startswith("_")
                    and not node.attr.startswith("__") and isinstance(node.value, ast.Name)
                    and node.value.id in aliases):
                bad.append(f"{path.relative_to(ROOT)}: {node.value.id}.{node.attr}")
    assert bad == []


def test_formats_and_pairing_never_reach_up_to_the_services():
    """The formats write only through the desk they are handed; pairing is pure Python."""
    for path in SOURCES:
        module = module_name(path)
        targets = {base for base, _ in _imports(path)}
        if module.startswith(f"{PACKAGE}.formats"):
            assert not any(t.startswith(f"{PACKAGE}.services") for t in targets), module
        if module.startswith(f"{PACKAGE}.pairing"):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.Import):
                    targets.update(a.name for a in node.names)
            outside = {t for t in targets if t.startswith(("django", PACKAGE))
                       and not t.startswith(f"{PACKAGE}.pairing")}
            assert outside == set(), module


@pytest.mark.parametrize("key", Format.values)
def test_every_format_has_its_module_behind_the_interface(key):
    fmt = format_for(key)
    assert isinstance(fmt, TournamentFormat) and fmt.key == key
    assert type(fmt).advance is not TournamentFormat.advance
    assert type(fmt).standings is not TournamentFormat.standings
    low, high = fmt.capacity
    assert 2 == low < high
    assert set(FORMATS) == set(Format.values)


def test_a_format_missing_part_of_the_interface_cannot_be_made():
    """``advance`` and ``standings`` (and a rounds format's ``total_rounds`` and ``pairings``)
    are abstract: a format that leaves one out fails when it is made, not in the middle of
    a running tournament."""
    from leaderboards.tournaments.formats.rounds import RoundsFormat

    class NoStandings(TournamentFormat):
        def advance(self, t, desk):
            return True

    class NoPairings(RoundsFormat):
        def total_rounds(self, t):
            return 3

    for incomplete in (NoStandings, NoPairings, TournamentFormat, RoundsFormat):
        with pytest.raises(TypeError, match="abstract"):
            incomplete()
    for fmt in FORMATS.values():
        assert not getattr(type(fmt), "__abstractmethods__", None), type(fmt)
