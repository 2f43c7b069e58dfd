"""A person challenges a bot from its profile in the browser, on the site started as the README
says (`bash scripts/run.sh`: Daphne and a real Celery worker), and plays the rated game to its
end against the example bot of docs/bot-api.md, run verbatim as its own process with its
token; the game is rated by the bots' rule (only the bot's rating moves)."""
from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time

import pytest

from tests.support.accounts import PASSWORD
from tests.support.browser import log_in, play_to_the_end, require_chromium
from tests.support.servers import ROOT

pytestmark = [pytest.mark.browser, pytest.mark.backend_independent]

require_chromium()


def _bot_token(site) -> str:
    """A bot account ``chalky`` with a ``bot:play`` token, in the site's database."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("DATABASE_URL", "REDIS_URL", "CELERY_TASK_ALWAYS_EAGER")}
    env.update({"GINSITE_VAR_DIR": str(site["tmp"] / "var"),
                "DJANGO_SETTINGS_MODULE": "ginsite.settings"})
    done = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", (
            "from django.contrib.auth import get_user_model\n"
            "from accounts.services import api_token_create, bot_account_convert\n"
            "u = get_user_model().objects.create_user('chalky', password=None)\n"
            "bot_account_convert(user=u)\n"
            "print('TOKEN=' + api_token_create(user=u, name='t', scopes=['bot:play'])[1])\n"
        )], cwd=ROOT, env=env, check=True, timeout=120, capture_output=True, text=True,
    )
    return next(line[6:] for line in done.stdout.splitlines() if line.startswith("TOKEN="))


def test_a_person_challenges_the_example_bot_and_plays_a_rated_game(site, chromium):
    base = site["base"]
    bot = subprocess.Popen(
        [sys.executable, str(ROOT / "docs" / "examples" / "gin_bot.py"), "--games", "1"],
        env={**os.environ, "GIN_SITE": base, "GIN_TOKEN": _bot_token(site)},
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    ctx = chromium.new_context(viewport={"width": 1200, "height": 900})
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        log_in(page, base, "rhea", PASSWORD)
        page.goto(base + "/u/chalky/")
        page.click("details.challenge-box summary")
        page.select_option("select[name=mode]", "classic")
        page.fill("input[name=target]", "50")
        page.select_option("select[name=seconds_per_turn]", "60")
        page.check("input[name=rated]")
        page.click("form.challenge-form button[type=submit]")
        # The bot answers at once: the Challenges page goes to the table by itself when its
        # socket hears it, or shows the accepted challenge on top if it came first.
        try:
            page.wait_for_url("**/tables/*/", timeout=5000)
        except Exception:
            page.goto(base + "/challenges/")
            page.click("[data-just-accepted] a")
        page.wait_for_selector("#table-app")
        page.wait_for_selector(".tbl-conn[data-state=open]")
        table_id = int(page.get_attribute("#table-app", "data-table-id"))
        play_to_the_end(page)
        page.wait_for_selector(".tbl-panel[data-kind=game-over]")
        out, _ = bot.communicate(timeout=60)
        assert bot.returncode == 0 and f"table {table_id} over" in out, out[-2000:]
        assert errors == []
    finally:
        if bot.poll() is None:
            bot.kill()
        ctx.close()
    con = sqlite3.connect(site["db"])
    try:
        rated, ending = con.execute(
            "SELECT rated, ending FROM games_game WHERE table_id = ?", (table_id,)).fetchone()
        assert rated == 1 and ending in ("normal", "resignation", "timeout")
        deadline = time.monotonic() + 60
        moved: list = []
        while time.monotonic() < deadline and not moved:
            moved = con.execute(
                "SELECT u.username FROM leaderboards_ratingchange rc JOIN accounts_user u"
                " ON u.id = rc.user_id JOIN games_game g ON g.id = rc.game_id"
                " WHERE g.table_id = ?", (table_id,)).fetchall()
            time.sleep(0.5)
        assert moved == [("chalky",)], moved  # the worker rated it: only the bot's moved
    finally:
        con.close()
