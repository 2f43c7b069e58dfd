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


def seeded_computer_game(site, page, username: str, password: str, *, seed: int,
                         target: int = 50) -> int:
    """A Classic table of ``username`` against the Easy computer, to ``target`` points,
    untimed, dealt from ``seed``: made on the run command's database (``site``:
    tests/ui/conftest.py's) by ``services.play_computer``, as the lobby's form makes it (the
    form itself is test_my_tables_browser's), with the one random draw, the table's seed,
    fixed. The whole game is then the same on every run (both players are seeded bots), so
    its length and its analysis' do not vary with the deal. ``username`` signs in and opens
    the table; wait until its socket is open. Returns the table's id."""
    out = site.manage_shell(
        "from unittest import mock\n"
        "from accounts.models import User\n"
        "from games import services\n"
        f"with mock.patch('games.services.tables.secrets.randbits', return_value={seed}):\n"
        f"    t = services.play_computer(user=User.objects.get(username={username!r}),"
        f" mode='classic', level=1, seconds_per_turn=0, target={target})\n"
        "print(f'TABLE={t.pk} SEED={t.seed}')\n")
    line = next(x for x in out.splitlines() if x.startswith("TABLE="))
    table_id, got = (int(part.split("=")[1]) for part in line.split())
    assert got == seed, "the table's seed was not fixed: tables no longer draw it there"
    log_in(page, site["base"], username, password)
    page.goto(f"{site['base']}/tables/{table_id}/")
    page.wait_for_selector("#table-app")
    page.wait_for_selector(".tbl-conn[data-state=open]")
    return table_id


AXE = ROOT / "static" / "vendor" / "axe-core" / "axe.min.js"


# Moderate by axe's measure, but what a screen reader's user navigates by: the headings'
# order and the landmarks' names (a skip from h2 to h4 on "My statistics", two regions of
# one name on the offline page).
STRUCTURE_RULES = ("heading-order", "landmark-unique", "aria-prohibited-attr")


def serious_violations(page) -> list[str]:
    """axe-core's serious and critical violations on the page as it is now (and those of
    ``STRUCTURE_RULES``)."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    found = page.evaluate(
        "async (rules) => (await axe.run(document, {resultTypes: ['violations']})).violations"
        ".filter(v => v.impact === 'serious' || v.impact === 'critical'"
        " || rules.includes(v.id))"
        ".map(v => `${v.id} (${v.impact}): ${v.help} at ` +"
        " v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(', '))",
        list(STRUCTURE_RULES),
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
