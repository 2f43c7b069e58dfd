"""Done-when of issue 23 (docs/offline.md): the site started as the README says
(`bash scripts/run.sh`), the service worker installed, then **the server stopped**: a whole
Classic game and a whole Basic Rummy game against the computer played on a phone-sized
page, with a reload in the middle of the second that resumes it; then the server started
again, the player signs in and finds both games in the archive and the statistics.
"""
from __future__ import annotations

import json
import os
import shutil
import time
import urllib.request

import pytest

from tests.support.browser import CHROMIUM, log_in, phone_page, play_to_the_end, require_chromium
from tests.support.servers import ROOT

pytestmark = [pytest.mark.browser, pytest.mark.backend_independent]

PASSWORD = "a-Strong-pass-123"

require_chromium()


def _up(base: str) -> bool:
    try:
        with urllib.request.urlopen(base + "/healthz", timeout=2) as r:
            return json.loads(r.read())["status"] == "ok"
    except Exception:
        return False


@pytest.fixture(scope="module")
def built_files(tmp_path_factory):
    """A copy of ``generated/static`` for this module's server alone."""
    copy = tmp_path_factory.mktemp("offline_built") / "generated_static"
    shutil.copytree(ROOT / "generated" / "static", copy)
    return copy


@pytest.fixture(scope="module")
def server(tmp_path_factory, built_files):
    """Daphne on a migrated SQLite file of its own (``server_env``), shared by the tests after
    the first: they use no account and no table, only the offline page, its service worker
    and the browser's own storage (each test in its own browser context). Its built files
    are a copy (``tests.support.private_static``), which one test changes."""
    from tests.support.servers import daphne, migrate, server_env

    tmp = tmp_path_factory.mktemp("offline")
    env = server_env(tmp, DJANGO_SETTINGS_MODULE="tests.support.private_static",
                     GINSITE_TEST_GENERATED_STATIC=str(built_files))
    migrate(env)
    with daphne(tmp, env) as base:
        yield base


def _poll(page, fn: str, arg=None, timeout: float = 60):
    """Evaluate ``fn`` (a function) until it is truthy (CSP forbids eval'd expressions)."""
    end = time.monotonic() + timeout
    while True:
        value = page.evaluate(fn, arg)
        if value:
            return value
        if time.monotonic() > end:
            pytest.fail(f"timed out waiting for {fn}")
        time.sleep(0.1)


def _controlled(page):
    """Wait until the service worker has installed (precaching the page, the table, Pyodide
    and the engine package) and is active, then reload: it controls the page from then on."""
    _poll(page, "async () => { const r = await navigator.serviceWorker.ready;"
                " return !!(r && r.active && r.active.state === 'activated'); }", timeout=120)
    page.reload()
    _poll(page, "() => !!navigator.serviceWorker.controller")


SNAPSHOT_SAVED = """() => { const o = window.ginOffline;
  return !!(o && (o.startup && o.startup.snapshot === 'used'
                  || o.engine.snapshot && o.engine.snapshot.ok)); }"""


def _new_game(page, mode: str, computers: int = 1, level: int = 1):
    page.select_option("#offline-mode", mode)
    page.select_option("#offline-level", str(level))
    if mode == "rummy":
        page.select_option("#offline-computers", str(computers))
    page.fill("#offline-target", "50")
    page.click("#offline-form button[type=submit]")
    _poll(page, "() => window.ginTable && window.ginTable.frame && window.ginTable.view")


def test_offline_games_on_the_run_command_then_synced(site, chromium):
    """On the session's run command (tests/ui/conftest.py's ``site``), which this test stops
    and starts again on the same port and data, and leaves running for the next tests."""
    site.manage_shell(
        "from django.contrib.auth import get_user_model\n"
        "from allauth.account.models import EmailAddress\n"
        f"u = get_user_model().objects.create_user('oona', 'oona@example.com', '{PASSWORD}')\n"
        "EmailAddress.objects.create(user=u, email=u.email, verified=True, primary=True)\n")
    ctx, page, errors = phone_page(chromium, service_workers="allow")
    try:
        page.goto(site.base + "/play/offline/")
        _controlled(page)
        page.evaluate("() => localStorage.setItem('gin.offline.botDelayMs', '20')")
        # the same deals on every run: with a random deal, about one Basic Rummy game in a
        # hundred ended (a computer out at once, to 50) inside the six moves below. Seed 1:
        # with today's bots a Classic game of 35 moves (two hands) and a Basic Rummy game of
        # 133 (two hands); seed 11's were 115 and 365 moves (the two games 20 s of the test,
        # now 7 s)
        page.evaluate("() => localStorage.setItem('gin.offline.seed', '1')")
        _poll(page, SNAPSHOT_SAVED, timeout=120)
        site.stop()
        assert not _up(site.base)

        # ---- no server: everything comes from the service worker's cache, and the engine
        # from the snapshot its first start saved
        page.reload()
        _poll(page, "() => window.ginOffline && window.ginOffline.readyMs", timeout=120)
        assert page.evaluate("() => window.ginOffline.startup.snapshot") == "used"
        _new_game(page, "classic")
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
        play_to_the_end(page, seed=3)
        finish = page.evaluate("() => window.ginTable.frame.table.finish")
        assert finish["ending"] == "normal" and max(finish["scores"]) >= 50
        assert page.locator(".tbl-panel").get_by_text("Play again").is_visible()

        page.goto(site.base + "/play/offline/")  # the lobby of the offline game, from the cache
        _poll(page, "() => window.ginOffline && window.ginOffline.readyMs", timeout=120)
        _new_game(page, "rummy", computers=2)
        for _ in range(6):  # a few moves, then the app is closed and opened again
            _poll(page, "() => { const t = window.ginTable; return t.myTurn && !t.busy; }")
            page.evaluate("() => window.ginTable.send(window.ginTable.legal.find("
                          "a => a.startsWith('draw:stock')) || window.ginTable.legal.find("
                          "a => a.startsWith('discard')) || window.ginTable.legal[0])")
            time.sleep(0.2)
        _poll(page, "() => window.ginTable.myTurn && !window.ginTable.busy")
        # a hint, with no server: the Hard computer's move, thought in this browser
        page.tap(".button-hint")
        _poll(page, "() => window.ginTable.hint && window.ginTable.hint.version"
                    " === window.ginTable.frame.version")
        assert page.evaluate("() => window.ginTable.legal.includes(window.ginTable.hint.action)")
        assert page.locator(".toast").get_by_text("Hint:").count() == 1
        before = page.evaluate("() => ({v: window.ginTable.frame.version,"
                               " hand: window.ginTable.view.hand, url: location.href})")
        assert "?game=" in before["url"]
        page.reload()
        _poll(page, "() => window.ginTable && window.ginTable.view", timeout=120)
        after = page.evaluate("() => ({v: window.ginTable.frame.version,"
                              " hand: window.ginTable.view.hand})")
        assert after == {"v": before["v"], "hand": before["hand"]}
        play_to_the_end(page, seed=4)
        assert page.evaluate("() => window.ginTable.frame.table.finish.ending") == "normal"
        page.goto(site.base + "/play/offline/")
        _poll(page, "() => document.querySelectorAll('#offline-stats-body tr').length === 2")
        assert page.locator("[aria-label='Offline statistics table']").is_visible()
        assert not errors, errors

        # ---- the server is back: sign in, and the games are uploaded and filed
        site.start()
        log_in(page, site.base, "oona", PASSWORD)
        deadline = time.monotonic() + 60
        while True:
            page.goto(site.base + "/games/")
            text = page.locator("main").inner_text()
            if text.count("offline, against the computer") >= 2:
                break
            assert time.monotonic() < deadline, text
            time.sleep(1)
        assert "Classic Gin" in text and "Basic Rummy" in text
        # the statistics are counted by the Celery worker, a moment after the upload
        deadline = time.monotonic() + 60
        while True:
            out = site.manage_shell(
                "from leaderboards.stats.models import PlayerStats\n"
                "from games.models import Game\n"
                "print(sorted((s.mode, s.opponents, s.games) for s in "
                "PlayerStats.objects.filter(user__username='oona') if s.mode != 'all'))\n"
                "print(Game.objects.filter(offline_id__isnull=False, rated=False).count())\n")
            if "('classic', 'easy', 1)" in out and "('rummy', 'easy', 1)" in out:
                break
            assert time.monotonic() < deadline, out
            time.sleep(1)
        assert out.strip().endswith("2"), out
        page.goto(site.base + "/stats/")
        stats = page.locator("main").inner_text()
        assert "Easy" in stats
        # uploading again (another sync) stores nothing more
        page.goto(site.base + "/play/offline/")
        _poll(page, "() => /in your archive/.test("
                    "document.getElementById('offline-sync').textContent)")
        assert site.manage_shell(
            "from games.models import Game\n"
            "print(Game.objects.filter(offline_id__isnull=False).count())"
        ).strip().splitlines()[-1] == "2"
    finally:
        if site.proc is None:  # (the next tests need it)
            site.start()
        ctx.close()


def test_installable_and_accessible_in_chromium(server, tmp_path, chromium):
    """Chromium's own installability check (CDP ``Page.getInstallabilityErrors``: manifest,
    icons, a service worker that controls the page) finds nothing; axe-core finds no serious
    problem on the offline page, before and during a game, on a phone."""
    from tests.support.browser import CHROMIUM_ARGS, serious_violations

    base = server
    # a real profile: Chromium never offers to install from an incognito one, which is
    # what new_context() makes
    ctx = chromium.browser_type.launch_persistent_context(
        str(tmp_path / "profile"), executable_path=CHROMIUM, args=CHROMIUM_ARGS,
        viewport={"width": 390, "height": 844}, service_workers="allow")
    page = ctx.new_page()
    page.goto(base + "/play/offline/")
    _controlled(page)
    cdp = ctx.new_cdp_session(page)
    manifest = cdp.send("Page.getAppManifest")
    assert not manifest.get("errors"), manifest.get("errors")
    assert cdp.send("Page.getInstallabilityErrors")["installabilityErrors"] == []
    _poll(page, "() => window.ginOffline && window.ginOffline.readyMs", timeout=120)
    ctx.close()
    # axe-core is injected, so this context lifts the CSP (as test_accessibility does)
    ctx = chromium.new_context(viewport={"width": 390, "height": 844}, bypass_csp=True)
    page = ctx.new_page()
    page.goto(base + "/play/offline/")
    _poll(page, "() => window.ginOffline && window.ginOffline.readyMs", timeout=120)
    assert serious_violations(page) == []
    # no game yet: the statistics' scrolling box is no tab stop (it was one, 0 px high)
    assert page.locator("[aria-label='Offline statistics table']").is_hidden()
    _new_game(page, "rummy", computers=3)
    _poll(page, "() => window.ginTable.myTurn")
    assert serious_violations(page) == []
    # a phone's seat boxes tell the three computers apart (each read "Compute…"), and the
    # drawer has no chat: nobody is there to read it
    labels = page.evaluate("""() => [...document.querySelectorAll('.tbl-opps .seat-name-text')]
      .map((n) => ({text: n.textContent, cut: n.scrollWidth > n.clientWidth + 1}))""")
    assert len({x["text"] for x in labels}) == 3 and not any(x["cut"] for x in labels), labels
    assert page.locator(".tbl-side-toggle").text_content() == "Moves"
    assert page.locator(".tbl-chat").is_hidden()
    ctx.close()


def test_a_new_version_is_offered_then_replaces_the_old_cache(server, built_files, chromium):
    """A changed static file makes a new service worker: the page offers "Update", the new
    worker takes over on the click, the page reloads and the old version's cache is gone.
    Another open page of the site is not reloaded under its reader (a new API token is shown
    once); its own "Update" then loads the new version."""
    package = built_files / "offline" / "engine.zip"  # this server's own copy
    base = server
    ctx = chromium.new_context(service_workers="allow")
    page = ctx.new_page()
    page.goto(base + "/play/")
    _controlled(page)
    before = page.evaluate("async () => await caches.keys()")
    assert len(before) == 1 and not page.locator("#sw-update").count()
    other = ctx.new_page()
    other.goto(base + "/play/")
    _controlled(other)
    other.evaluate("""() => { window.kept = true; navigator.serviceWorker.addEventListener(
        "controllerchange", () => { window.changed = true; }); }""")
    stat = package.stat()  # a new build of a precached file (same bytes, a new time)
    os.utime(package, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    try:
        page.evaluate("async () => (await navigator.serviceWorker.getRegistration()).update()")
        _poll(page, "() => !!document.getElementById('sw-update')", timeout=120)
        assert "new version" in page.inner_text("#sw-update")
        with page.expect_navigation():
            page.click("#sw-update button")
        _poll(page, "async () => (await caches.keys()).length === 1"
                    " && !(await navigator.serviceWorker.getRegistration()).waiting")
        after = page.evaluate("async () => await caches.keys()")
        assert after != before
        # the other page now runs under the new worker, still showing what it showed
        _poll(other, "() => window.changed === true")
        other.wait_for_timeout(1000)
        assert other.evaluate("() => window.kept") is True
        with other.expect_navigation():
            other.click("#sw-update button")
        assert other.evaluate("() => window.kept") is None
    finally:
        ctx.close()


def test_later_starts_restore_the_engine_snapshot(server, chromium):
    """The engine's first start saves a snapshot of the started interpreter; later starts
    restore it (docs/offline.md): each still deals new cards, plays the Expert (whose modules
    load after the first start), and a damaged snapshot is thrown away for a normal start."""
    base = server
    ctx = chromium.new_context(viewport={"width": 390, "height": 844},
                               service_workers="allow")
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(base + "/play/offline/")
    _poll(page, "() => window.ginOffline && window.ginOffline.readyMs", timeout=120)
    assert page.evaluate("() => window.ginOffline.startup.snapshot") == "made"
    _poll(page, SNAPSHOT_SAVED, timeout=120)
    page.evaluate("() => localStorage.setItem('gin.offline.botDelayMs', '0')")
    new = ("() => window.ginOffline.engine.call('new', {config: {mode: 'classic',"
           " level: 1, computers: 1, target: null, id: crypto.randomUUID(), name: 'A'}})"
           ".then((r) => r.ok && [r.doc.seed, r.frame.view.hand.join(' ')])")
    deals = []
    for _ in range(2):
        page.reload()
        _poll(page, "() => window.ginOffline && window.ginOffline.readyMs", timeout=120)
        assert page.evaluate("() => window.ginOffline.startup.snapshot") == "used"
        deals.append(page.evaluate(new))
    assert all(deals) and deals[0] != deals[1]  # the snapshot does not repeat a deal

    _new_game(page, "classic", level=4)  # the Expert, from the restored interpreter
    _poll(page, """() => { const t = window.ginTable;
      if (t.myTurn && !t.busy) t.send(t.legal.find((a) => a.startsWith('draw:stock'))
        || t.legal.find((a) => a.startsWith('discard')) || t.legal[0]);
      return window.ginOffline.transport.moveTimes.length >= 2; }""", timeout=120)
    assert page.evaluate("() => window.ginOffline.transport.moveTimes[0].level") == 4

    # a damaged snapshot (cut short): the next start ignores it and saves a good one
    page.evaluate("""async () => { const c = await caches.open('offline-snapshot');
      const [k] = await c.keys(); const b = await (await c.match(k)).arrayBuffer();
      await c.put(k, new Response(b.slice(0, b.byteLength >> 1))); }""")
    page.goto(base + "/play/offline/")
    _poll(page, "() => window.ginOffline && window.ginOffline.readyMs", timeout=120)
    assert page.evaluate("() => window.ginOffline.startup.snapshot") == "made"
    assert page.evaluate(new)
    _poll(page, SNAPSHOT_SAVED, timeout=120)
    page.reload()
    _poll(page, "() => window.ginOffline && window.ginOffline.readyMs", timeout=120)
    assert page.evaluate("() => window.ginOffline.startup.snapshot") == "used"
    assert not errors, errors
    ctx.close()
