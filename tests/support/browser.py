"""Browser tests: Debian's Chromium, the cards a seat must not see, and a page played to the
end of its game."""
from __future__ import annotations

from tests.support.accounts import PASSWORD
from tests.support.servers import ROOT

CHROMIUM = "/usr/bin/chromium"


CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update",
]


PHONE = {"width": 390, "height": 844}


def phone_page(chromium, **options):
    """A new phone's browser context (390 x 844, touch) and its page, with the list the page's
    script errors go to: ``(context, page, errors)``; ``options`` go to ``new_context``."""
    ctx = chromium.new_context(viewport=PHONE, has_touch=True, is_mobile=True, **options)
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    return ctx, page, errors


def log_in(page, base: str, username: str, password: str = PASSWORD, *,
           tap: bool = False) -> None:
    """Log in through the site's own form, as a person would (``tap`` on a touch screen), and
    wait for the page it leads to; a login the site refuses fails here, with the name."""
    page.goto(base + "/accounts/login/")
    page.fill("input[name=login]", username)
    page.fill("input[name=password]", password)
    with page.expect_navigation():
        button = page.locator("form:has(input[name=login]) button[type=submit]")
        button.tap() if tap else button.click()
    assert "/accounts/login/" not in page.url, f"{username} could not log in"


def hidden_from(state: dict, seat: int) -> set[str]:
    """Cards this seat must not see: the stock, the knocker's face-down discard (until the
    hand ends), and the other seats' concealed cards (a knocker has shown their hand). At the
    end of the game everything is public (the record holds the seed)."""
    if state.get("phase") == "over":
        return set()
    hidden = set(state.get("stock", []))
    sd = state.get("showdown") or {}
    if sd.get("knocker") != seat:
        hidden |= set(state.get("face_down") or [])
    for other, hand in enumerate(state.get("hands", [])):
        if other == seat or sd.get("knocker") == other:
            continue
        hidden |= set(hand) - set(state["known"][other])
    return hidden


def play_to_the_end(page, seed: int = 7, limit: int = 600, choose=None) -> int:
    """Play the page's seat until the game is over, each move chosen by the Hard bot from the
    page's own view (or by ``choose(view, decisions)`` where that returns a move) and sent
    through the page's own move path; after each, wait until the page shows a newer version
    (so every computer move must arrive live). Returns the number of moves made."""
    from games import engine as E
    from games.bots import get_bot

    bot = get_bot("hard", seed=seed)
    decisions = 0
    while True:
        page.wait_for_function(
            "() => { const t = window.ginTable; return t && t.frame && ("
            " t.frame.table.status !== 'playing' ||"
            " (t.view && t.view.to_act === t.mySeat && !t.socket.pending.busy && !t.busy)) }",
            timeout=30000,
        )
        state = page.evaluate(
            "() => ({status: window.ginTable.frame.table.status, view: window.ginTable.view,"
            " version: window.ginTable.socket.version})"
        )
        if state["status"] != "playing":
            return decisions
        view = state["view"]
        action = (choose and choose(view, decisions)) or str(
            bot.choose(view, [E.Action.parse(a) for a in view["legal_actions"]]))
        page.evaluate("a => window.ginTable.send(a)", action)
        page.wait_for_function(
            "v => window.ginTable.socket.version > v", arg=state["version"], timeout=30000
        )
        decisions += 1
        assert decisions < limit, "the game did not end"


def start_computer_game(page, base: str, username: str, password: str, *,
                        target: str = "50") -> int:
    """Sign ``username`` in and open a Classic table against the Easy computer, to
    ``target`` points, untimed; wait until its socket is open. Returns the table's id."""
    log_in(page, base, username, password)
    page.goto(base + "/play/classic/")
    page.fill("input[name=target]", target)
    page.select_option("select[name=seconds_per_turn]", "0")
    page.select_option("select[name=bots]", "1")
    page.click("form[action$='/new/'] button[type=submit]")
    page.wait_for_selector("#table-app")
    page.wait_for_selector(".tbl-conn[data-state=open]")
    return int(page.get_attribute("#table-app", "data-table-id"))


AXE = ROOT / "static" / "vendor" / "axe-core" / "axe.min.js"


def serious_violations(page) -> list[str]:
    """axe-core's serious and critical violations on the page as it is now."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    found = page.evaluate(
        "async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
        ".filter(v => v.impact === 'serious' || v.impact === 'critical')"
        ".map(v => `${v.id} (${v.impact}): ${v.help} at ` +"
        " v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(', '))"
    )
    return found


def require_chromium() -> None:
    """Skip the calling test module unless Playwright and Debian's Chromium are installed
    (call at module level)."""
    import os

    import pytest

    pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"{CHROMIUM} is missing (apt-get install chromium)", allow_module_level=True)


def strings_in(obj):
    """Every string in a JSON value, keys included (to scan a frame for hidden cards)."""
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield k
            yield from strings_in(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from strings_in(v)
