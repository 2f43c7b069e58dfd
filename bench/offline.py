"""The offline game on a slow phone: issue 23's item 5 (figures in docs/operations.md).

Starts Daphne as the run command does (DEBUG off: the engine package built, hashed static files
collected and compressed), opens /play/offline/ in Chromium at 390x844, lets the service worker
install, then cuts the network (``context.set_offline``) and slows the CPU four times (CDP
``Emulation.setCPUThrottlingRate``), and measures the items below.

Chromium throttles pages only: sent to the engine's dedicated worker the command answers
"Operation is only supported for pages, not workers". So every figure is also given as a
phone estimate: the measured time (the page throttled) plus ``rate - 1`` times the worker's own
compute time (measured inside the worker: Pyodide's start, each ``handle`` call), as if the
worker were slowed as much. The Expert's search is bounded by samples, not by the clock, so its
compute grows with a slower CPU and the estimate is the right model for it.

- the one-time download: every URL the service worker precaches plus the page, fetched with
  ``Accept-Encoding: br, gzip`` as a browser does, in bytes on the wire;
- the first offline start from the cache: the page reloaded with no network, to the engine
  ready and to a dealt hand (the Classic game's first frame drawn), and from the click on
  "Start a game" to the dealt hand; alternately with the worker's saved snapshot of the
  started interpreter and without it (its cache deleted first: the very first start);
- each computer move at every level: the time from asking the worker to the new frame, over
  whole games (the person plays a simple legal move at once; computers with no pause).

Run: ``.venv/bin/python bench/offline.py [--moves 60] [--rate 4]``
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.browser import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from tests.support.servers import daphne, manage, production_env  # noqa: E402

LEVELS = {1: "Easy", 2: "Medium", 3: "Hard", 4: "Expert"}
PICK = """() => {
  const t = window.ginTable;
  if (!t || !t.frame) return 'none';
  if (t.frame.table.status === 'finished') return 'finished';
  if (!t.myTurn || t.busy) return 'wait';
  const legal = t.legal;
  const pref = (p) => legal.find((a) => a.startsWith(p));
  t.send(pref('gin') || pref('knock') || pref('go_out') || pref('draw:stock') || pref('pass')
         || pref('discard') || legal[0]);
  return 'moved';
}"""
SNAPSHOT_SAVED = """() => { const o = window.ginOffline;
  if (!o || !o.engine) return false;
  if (o.startup && o.startup.snapshot === 'used') return 'used';
  return o.engine.snapshot ? JSON.stringify(o.engine.snapshot) : false; }"""


def poll(page, fn, timeout=300.0):
    end = time.monotonic() + timeout
    while True:
        v = page.evaluate(fn)
        if v:
            return v
        if time.monotonic() > end:
            raise TimeoutError(fn)
        time.sleep(0.02)


def wire_bytes(base: str) -> tuple[int, int, int]:
    """(bytes on the wire, bytes uncompressed, files) of the page and its precache list."""
    body = urllib.request.urlopen(base + "/sw.js").read().decode()
    start = body.index("const PRECACHE = ") + len("const PRECACHE = ")
    urls = json.loads(body[start:body.index(";\n", start)])
    wire = raw = 0
    for u in ["/sw.js", *urls]:
        req = urllib.request.Request(base + u, headers={"Accept-Encoding": "br, gzip"})
        with urllib.request.urlopen(req) as r:
            data = r.read()
            wire += len(data)
            if r.headers.get("Content-Encoding"):
                req = urllib.request.Request(base + u)
                raw += len(urllib.request.urlopen(req).read())
            else:
                raw += len(data)
    return wire, raw, len(urls) + 1


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--moves", type=int, default=60, help="computer moves per level")
    parser.add_argument("--rate", type=float, default=4.0, help="CPU slowdown")
    parser.add_argument("--starts", type=int, default=3, help="offline starts to measure")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        env = production_env(tmp)
        env["LOG_LEVEL"] = "WARNING"
        manage(env, "migrate", "--noinput", "-v", "0")
        manage(env, "build_offline_engine", "-v", "0")
        manage(env, "collectstatic", "--noinput", "-v", "0")
        with daphne(tmp, env) as base, sync_playwright() as p:
            wire, raw, files = wire_bytes(base)
            print(f"one-time download: {wire / 1e6:.1f} MB on the wire "
                  f"({raw / 1e6:.1f} MB uncompressed, {files} files)")
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            ctx = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True,
                                      has_touch=True, service_workers="allow")
            page = ctx.new_page()
            page.goto(base + "/play/offline/")
            poll(page, "async () => { const r = await navigator.serviceWorker.ready;"
                       " return r.active && r.active.state === 'activated'; }")
            page.reload()
            poll(page, "() => !!navigator.serviceWorker.controller")
            page.evaluate("() => localStorage.setItem('gin.offline.botDelayMs', '0')")
            ctx.set_offline(True)
            cdp = ctx.new_cdp_session(page)
            cdp.send("Emulation.setCPUThrottlingRate", {"rate": args.rate})
            # the first visit (online) starts the engine and saves its snapshot
            poll(page, SNAPSHOT_SAVED, timeout=600)
            starts = []
            for i in range(args.starts * 2):
                fresh = i % 2 == 1  # every other start without the saved snapshot (A/B)
                if fresh:
                    page.evaluate("() => caches.delete('offline-snapshot')")
                t0 = time.monotonic()
                page.reload()
                worker_ms = poll(page, "() => window.ginOffline && window.ginOffline.readyMs")
                ready = time.monotonic() - t0
                startup = page.evaluate("() => window.ginOffline.startup")
                print("  worker start-up:", startup)
                page.select_option("#offline-mode", "classic")
                page.select_option("#offline-level", "1")
                t1 = time.monotonic()
                page.click("#offline-form button[type=submit]")
                poll(page, "() => window.ginTable && window.ginTable.view"
                           " && window.ginTable.view.hand.length >= 10")
                t2 = time.monotonic()
                starts.append((startup["snapshot"], ready, t2 - t0, t2 - t1, worker_ms / 1000))
                if fresh:
                    print("  snapshot saved:", poll(page, SNAPSHOT_SAVED, timeout=600))
                page.goto(base + "/play/offline/")
                poll(page, "() => window.ginOffline && window.ginOffline.readyMs")
            extra = args.rate - 1
            for snap, ready, dealt, click, worker in starts:
                print(f"offline start from the cache, snapshot {snap} (page CPU x{args.rate:g}): "
                      f"engine ready {ready:.2f} s, dealt hand {dealt:.2f} s (worker "
                      f"{worker:.2f} s), click to dealt hand {click:.2f} s; "
                      f"phone estimate: dealt hand {dealt + extra * worker:.2f} s")
            for level, name in LEVELS.items() if args.moves else ():
                times: list[float] = []
                estimates: list[float] = []
                while len(times) < args.moves:
                    page.goto(base + "/play/offline/")
                    poll(page, "() => window.ginOffline && window.ginOffline.readyMs")
                    page.select_option("#offline-mode", "classic")
                    page.select_option("#offline-level", str(level))
                    page.click("#offline-form button[type=submit]")
                    poll(page, "() => window.ginTable && window.ginTable.view")
                    while len(times) + len(page.evaluate(
                            "() => window.ginOffline.transport.moveTimes")) < args.moves:
                        if page.evaluate(PICK) == "finished":
                            break
                        time.sleep(0.01)
                    done = page.evaluate("() => window.ginOffline.transport.moveTimes")
                    times += [m["ms"] for m in done]
                    estimates += [m["ms"] + extra * m["engineMs"] for m in done]
                for label, xs in (("measured", times[:args.moves]),
                                  ("phone estimate", estimates[:args.moves])):
                    q = statistics.quantiles(xs, n=20)
                    print(f"{name:6} computer move, {label} (CPU x{args.rate:g}, {len(xs)} "
                          f"moves): median {statistics.median(xs):.0f} ms, p95 {q[18]:.0f} ms, "
                          f"max {max(xs):.0f} ms")
            browser.close()


if __name__ == "__main__":
    main()
