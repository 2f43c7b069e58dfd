"""docs/bot-api.md's example bot is docs/examples/gin_bot.py, verbatim (the live tests run the
file, so what they prove holds for the code people copy from the page), it imports only the
standard library and ``websockets``, and its policy finishes games of every mode."""
from __future__ import annotations

import ast
import re
import runpy
import sys

import pytest

from games import engine as E
from tests.support.servers import ROOT

DOC = ROOT / "docs" / "bot-api.md"
EXAMPLE = ROOT / "docs" / "examples" / "gin_bot.py"




def test_the_docs_show_the_example_file_verbatim():
    text = DOC.read_text()
    section = text[text.index("## Example bot"):]
    blocks = re.findall(r"```python\n(.*?)```", section, re.DOTALL)
    assert blocks, "no python block under Example bot"
    assert blocks[0] == EXAMPLE.read_text()


def test_the_example_uses_the_standard_library_and_websockets_only():
    tree = ast.parse(EXAMPLE.read_text())
    roots = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            roots.add(node.module.split(".")[0])
    assert roots - set(sys.stdlib_module_names) == {"websockets"}
    assert len(EXAMPLE.read_text().splitlines()) <= 180


@pytest.mark.parametrize("mode", ["classic", "straight", "oklahoma", "hollywood", "rummy"])
def test_the_example_policy_finishes_a_game_of_every_mode(mode):
    choose = runpy.run_path(str(EXAMPLE))["choose"]
    for seed in range(3):
        state = E.new_game(mode, seed=seed, num_players=2)
        for _ in range(3000):
            if state.is_over:
                break
            seat = state.to_act
            state, _ = E.apply(state, choose(E.view_for(state, seat)), seat)
        assert state.is_over, (mode, seed, state)


@pytest.mark.django_db
def test_the_site_serves_its_api_docs_where_the_settings_and_the_api_point(client,
                                                                          make_user):
    """The settings page named a repository path, docs/bot-api.md, that the site did not
    serve: the docs and the example bot are now at /api/docs/, linked from there and from
    the API's 404."""
    docs = client.get("/api/docs/bot-api.md")
    assert docs.status_code == 200 and docs["Content-Type"] == "text/plain; charset=utf-8"
    assert docs.content.decode() == DOC.read_text()
    # the page people read: the Markdown made a page of the site (it was 36 KB of plain text
    # at a desktop's width on a phone), its tables in boxes that scroll, and HEAD answered
    page = client.get("/api/docs/")
    assert page.status_code == 200 and page["Content-Type"].startswith("text/html")
    html = page.content.decode()
    assert '<meta name="viewport"' in html and "<h1" in html
    assert html.count('<div class="table-scroll"><table>') == html.count("<table") >= 8
    assert 'href="/api/docs/bot-api.md"' in html and "| ---" not in html
    assert client.head("/api/docs/").status_code == 200
    # the two documents it leans on are pages too, and its mentions of them link there
    # (named as those pages are titled: the paths read as files to look for)
    assert 'href="/api/docs/protocol/">the table protocol</a>' in html
    assert 'href="/api/docs/records/">game records</a>' in html
    # the notes for the site's own developers are in the file, not on the page
    assert "For code inside the site" in DOC.read_text()
    assert "For code inside the site" not in html and "site code" not in html
    for internal in ("accounts/api.py", "bench/", "tests/games/"):
        assert internal in DOC.read_text() and internal not in html, internal
    for name, heading in (("protocol", "<h1"), ("records", "<h1")):
        other = client.get(f"/api/docs/{name}/")
        assert other.status_code == 200 and heading in other.content.decode()
    assert client.get("/api/docs/architecture/").status_code == 404
    bot = client.get("/api/docs/gin_bot.py")
    assert bot.status_code == 200 and bot.content.decode() == EXAMPLE.read_text()
    assert client.post("/api/docs/").status_code == 405
    missing = client.get("/api/nowhere/").json()
    assert missing["error"] == "not_found" and "/api/docs/" in missing["detail"]
    client.force_login(make_user("dev"))
    page = client.get("/settings/api/").content.decode()
    assert 'href="/api/docs/"' in page and 'href="/api/docs/gin_bot.py"' in page
    assert "docs/bot-api.md" not in page
