"""The layers point one way (engine < bots < games < social < leaderboards, accounts under
all the apps, ``core`` under everything but the engine) and no module imports itself back
through others (docs/architecture.md). What crosses modules has a public name, and the
sockets' consumers are reached only through routing.

Read from the source, imports inside functions included: an import hidden in a function is
still a circle, only one that Python forgives at import time.
"""
from __future__ import annotations

import ast
from pathlib import Path

from tests.support.source import imported_from

ROOT = Path(__file__).resolve().parent.parent
APPS = ("core", "games", "social", "leaderboards", "accounts", "ginsite")


def _modules() -> dict[str, Path]:
    found = {}
    for app in APPS:
        for path in (ROOT / app).rglob("*.py"):
            rel = path.relative_to(ROOT)
            if "migrations" in rel.parts:
                continue
            name = ".".join(rel.with_suffix("").parts)
            found[name.removesuffix(".__init__")] = path
    return found


MODULES = _modules()


def _imports(name: str, path: Path) -> set[str]:
    """Every module ``name`` imports (first-party modules by name, others by their top)."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = imported_from(name, path, node)
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                out.add(sub if sub in MODULES else base)
        elif isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
    out.discard(name)
    return out


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def _first_party(targets: set[str]) -> set[str]:
    return {t for t in targets if t in MODULES}


def _cycles() -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in _first_party(GRAPH[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for v in GRAPH:
        if v not in index:
            visit(v)
    return groups


def _offenders(prefix: str, forbidden: tuple[str, ...]) -> dict[str, list[str]]:
    bad = {}
    for name, targets in GRAPH.items():
        if name == prefix or name.startswith(prefix + "."):
            hits = sorted(t for t in targets if t.split(".")[0] in forbidden
                          or any(t == f or t.startswith(f + ".") for f in forbidden))
            if hits:
                bad[name] = hits
    return bad


def test_the_graph_sees_the_packages():
    assert len(MODULES) > 100
    assert "games.services.moves" in GRAPH["games.services"]
    assert "games.services.locking" in GRAPH["games.services.moves"]


def test_no_module_imports_itself_back():
    assert _cycles() == []


def test_the_engine_is_a_pure_library():
    assert _offenders("games.engine", ("django", "channels", "celery", "games.bots",
                                       "games.models", "social", "leaderboards",
                                       "accounts", "ginsite", "core")) == {}
    inside = {t for n, ts in GRAPH.items() if n.startswith("games.engine") for t in ts
              if t.startswith("games.") and not t.startswith("games.engine")}
    assert inside == set()


def test_bots_see_only_the_engine():
    assert _offenders("games.bots", ("django", "channels", "celery", "social",
                                     "leaderboards", "accounts", "ginsite")) == {}
    inside = {t for n, ts in GRAPH.items() if n.startswith("games.bots") for t in ts
              if t.startswith("games.") and not t.startswith(("games.engine", "games.bots"))}
    assert inside == set()


def test_games_never_imports_the_apps_above_it():
    assert _offenders("games", ("social", "leaderboards")) == {}


def test_social_never_imports_leaderboards():
    assert _offenders("social", ("leaderboards",)) == {}


def test_accounts_sits_under_the_apps():
    assert _offenders("accounts", ("games", "social", "leaderboards")) == {}


def test_settings_read_the_environment_and_import_no_app():
    """Settings are read before any app is ready: a settings module that imported an app
    (or the floor, which apps configure) would break start-up."""
    parts = ("ginsite.settings.base", "ginsite.settings.backends", "ginsite.settings.auth",
             "ginsite.settings.security", "ginsite.settings.env")
    assert all(name in MODULES for name in parts)
    assert _offenders("ginsite.settings", ("core", "accounts", "games", "social",
                                           "leaderboards", "django.conf")) == {}


def test_no_module_of_the_site_is_over_400_lines():
    """Issue 21: a module that grows past ~400 lines holds more than one concern; cut it by
    concern (as ginsite/settings, games/socket_work.py and the services packages were)."""
    long = {name: n for name, path in MODULES.items()
            if (n := len(path.read_text().splitlines())) > 400}
    assert long == {}


def test_accounts_services_sit_under_its_http_layer():
    """The writes (profile, tokens, bots) know no request: the API's token check
    (``accounts.api``) and the views call them, never the other way round; what they ask of
    the apps above goes through ``accounts.activity``."""
    assert {"accounts.services.tokens", "accounts.services.bots", "accounts.api"} <= set(MODULES)
    assert _offenders("accounts.services", ("accounts.api", "accounts.views", "accounts.forms",
                                            "django.http")) == {}
    assert "accounts.services" in GRAPH["accounts.api"]
    assert "accounts.activity" in GRAPH["accounts.services.bots"]


def test_core_is_the_floor_under_every_app():
    floor = ("core.locks", "core.jsonlimits", "core.sockets", "core.cache", "core.channels",
             "core.conf")
    assert all(name in MODULES for name in floor)
    assert _offenders("core", ("accounts", "games", "social", "leaderboards", "ginsite")) == {}
    # the apps use the floor's one copy (nothing of it is left in games)
    assert not any(name in MODULES for name in ("games.sockets", "games.cache"))
    assert "core.sockets" in GRAPH["games.consumers"] & GRAPH["social.consumers"]
    assert "core.conf" in GRAPH["games.conf"] & GRAPH["social.conf"]
    senders = ("games.broadcast", "social.notify")
    assert all("core.channels" in GRAPH[name] for name in senders)


def test_only_the_floor_sends_to_channel_layer_groups():
    """One sender, one retry policy: no app calls ``group_send`` itself (``ginsite.relay``
    is the layer's transport, not a sender)."""
    callers = sorted(
        name for name, path in MODULES.items()
        if name != "core.channels" and not name.startswith("ginsite.")
        and any(isinstance(node, ast.Attribute) and node.attr == "group_send"
                for node in ast.walk(ast.parse(path.read_text())))
    )
    assert callers == []


def _private_uses(name: str, path: Path) -> list[str]:
    """``_``-names (not dunders) that ``name`` takes from another first-party module: in
    ``from x import _y`` and as ``x._y`` on a module it imported."""
    tree = ast.parse(path.read_text())
    found, modules = [], set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = imported_from(name, path, node)
            for alias in node.names:
                if f"{base}.{alias.name}" in MODULES:
                    modules.add(alias.asname or alias.name)
                elif alias.name.startswith("_") and not alias.name.startswith("__"):
                    found.append(f"from {base} import {alias.name}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in MODULES and alias.asname:
                    modules.add(alias.asname)
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.value.id in modules and node.attr.startswith("_")
                and not node.attr.startswith("__")):
            found.append(f"{node.value.id}.{node.attr}")
    return found


def test_no_private_name_crosses_a_module():
    bad = {name: hits for name, path in MODULES.items() if (hits := _private_uses(name, path))}
    assert bad == {}


def test_the_scan_of_private_names_sees_both_spellings(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("from games.services.locking import after_commit, _hidden\n"
                      "from games import broadcast\nbroadcast._route([], None)\n"
                      "x = object()\nx._meta\n")
    assert _private_uses("games.sample", sample) == [
        "from games.services.locking import _hidden", "broadcast._route"]


def test_nothing_imports_a_consumer_but_routing():
    consumers = {"games.consumers", "social.consumers"}
    assert consumers <= set(MODULES)
    importers = sorted(name for name, targets in GRAPH.items()
                       if targets & consumers and not name.endswith(".routing"))
    assert importers == []
