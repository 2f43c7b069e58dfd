"""The table page's load over a slow link: what the run command's defaults buy.

Starts Daphne twice on scratch SQLite files, as the run command does (DEBUG off: hashed static
files compressed with brotli and gzip, cached for good; the table's modules preloaded) and in
development mode (DEBUG=1: files read from static/ uncompressed, ``max-age=0``), logs a player
in, starts a game against the computer and loads its table page in Chromium with the network
throttled (CDP ``Network.emulateNetworkConditions``: 150 ms latency, 1.6 Mbit/s down, 750 kbit/s
up, the DevTools "Slow 4G"-like preset). Prints, per configuration, for the first visit (empty
cache) and a second one (the page reloaded): the requests that went to the network (not answered
from the cache; the table's WebSocket included), the bytes that crossed it, and the time until
the hand was drawn. "no preload" strips the page's
``<link rel="modulepreload">`` tags, to show what they save on their own.

Run: ``.venv/bin/python bench/page_load.py [--runs 3]``
"""
from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.browser import CHROMIUM, CHROMIUM_ARGS, log_in  # noqa: E402
from tests.support.servers import daphne, manage, production_env  # noqa: E402

PASSWORD = "a-Strong-pass-123"
THROTTLE = {"offline": False, "latency": 150, "downloadThroughput": 1_600_000 / 8,
            "uploadThroughput": 750_000 / 8}


def prepare(tmp: Path, debug: bool) -> dict[str, str]:
    env = production_env(tmp)
    if debug:
        env["DEBUG"] = "1"
    env["LOG_LEVEL"] = "WARNING"
    manage(env, "migrate", "--noinput", "-v", "0")
    if not debug:
        manage(env, "collectstatic", "--noinput", "-v", "0")
    manage(env, "shell", "-c", (
        "from django.contrib.auth import get_user_model\n"
        "from allauth.account.models import EmailAddress\n"
        f"u = get_user_model().objects.create_user('bench', 'bench@example.com', '{PASSWORD}')\n"
        "EmailAddress.objects.create(user=u, email=u.email, verified=True, primary=True)\n"
    ), capture_output=True)
    return env


def table_url(browser, base: str) -> tuple[str, list]:
    ctx = browser.new_context()
    page = ctx.new_page()
    log_in(page, base, "bench", PASSWORD)
    page.goto(base + "/play/")
    page.select_option("select[name=mode]", "classic")
    page.click(".computer-form button[type=submit]")
    page.wait_for_selector(".tbl-main .hand-card")
    url, cookies = page.url, ctx.cookies()
    ctx.close()
    return url, cookies


def visit(browser, url: str, cookies: list, strip_preload: bool) -> list[dict]:
    """A cold visit then a reload in one context; per visit: requests, bytes, ms."""
    ctx = browser.new_context()
    ctx.add_cookies(cookies)
    page = ctx.new_page()
    cdp = ctx.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.emulateNetworkConditions", THROTTLE)
    got = {"requests": 0, "bytes": 0}

    def on_request(_):
        got["requests"] += 1

    def on_cached(_):
        got["requests"] -= 1

    def on_finished(event):
        got["bytes"] += event.get("encodedDataLength", 0)

    cdp.on("Network.requestWillBeSent", on_request)
    cdp.on("Network.requestServedFromCache", on_cached)
    cdp.on("Network.loadingFinished", on_finished)
    if strip_preload:
        def strip(route):
            response = route.fetch()
            body = re.sub(r'<link rel="modulepreload"[^>]*>', "", response.text())
            route.fulfill(response=response, body=body)
        page.route(url, strip)
    out = []
    # routing turns the HTTP cache off: a stripped page's reload is not measured
    for _ in range(1 if strip_preload else 2):
        got.update(requests=0, bytes=0)
        t0 = time.perf_counter()
        if out:
            page.reload(wait_until="commit")
        else:
            page.goto(url, wait_until="commit")
        page.wait_for_selector(".tbl-main .hand-card", timeout=60000)
        ms = (time.perf_counter() - t0) * 1000
        page.wait_for_load_state("load")
        out.append({"requests": got["requests"], "bytes": got["bytes"], "ms": ms})
    ctx.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    rows = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for label, debug, strip in (("run command (DEBUG off)", False, False),
                                    ("DEBUG off, no preload", False, True),
                                    ("DEBUG=1 (development)", True, False)):
            with tempfile.TemporaryDirectory() as d:
                tmp = Path(d)
                env = prepare(tmp, debug)
                with daphne(tmp, env) as base:
                    url, cookies = table_url(browser, base)
                    runs = [visit(browser, url, cookies, strip) for _ in range(args.runs)]
            rows.append((label, runs))
        browser.close()
    print(f"Table page over a throttled link (150 ms, 1.6 Mbit/s), median of {args.runs} runs")
    print(f"{'configuration':26} {'first visit':>30} {'reload':>30}")
    for label, runs in rows:
        cells = []
        for i in (0, 1):
            if len(runs[0]) <= i:
                cells.append("(not measured)")
                continue
            req = statistics.median(r[i]["requests"] for r in runs)
            kb = statistics.median(r[i]["bytes"] for r in runs) / 1024
            ms = statistics.median(r[i]["ms"] for r in runs)
            cells.append(f"{req:3.0f} req {kb:6.1f} KB {ms:6.0f} ms")
        print(f"{label:26} {cells[0]:>30} {cells[1]:>30}")


if __name__ == "__main__":
    main()
