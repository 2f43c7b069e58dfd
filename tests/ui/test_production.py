"""The run command's defaults serve like a real site: DEBUG off, a generated secret key,
the site's own error pages, hashed and compressed static files cached for good, and the
table's JS modules preloaded in one round."""
from __future__ import annotations

import re
import stat
import subprocess
import sys
import urllib.error
import urllib.request

import pytest

from tests.support.servers import ROOT, daphne, manage, migrate, production_env

TABLE_JS = ROOT / "static" / "js" / "table"
IMPORT = re.compile(r"""^import\s[^;]*?from\s+"\./([\w-]+\.js)";""", re.M)


def fetch(url: str, **headers: str):
    req = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


def test_generated_secret_key_is_made_once_and_kept_private(tmp_path):
    env = production_env(tmp_path)
    code = "from django.conf import settings as s; print(s.SECRET_KEY); print(s.DEBUG)"
    runs = [
        subprocess.run(
            [sys.executable, "manage.py", "shell", "--no-imports", "-c", code],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=True,
        ).stdout.split()
        for _ in range(2)
    ]
    assert runs[0] == runs[1] and runs[0][1] == "False"
    key_file = tmp_path / "var" / "secret_key"
    assert key_file.read_text().strip() == runs[0][0] and len(runs[0][0]) >= 50
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600


def test_defaults_serve_like_a_real_site(tmp_path):
    env = production_env(tmp_path)
    migrate(env)  # (the session's migrated SQLite file, copied)
    manage(env, "collectstatic", "--noinput", "-v", "0")
    collected = tmp_path / "static"
    # only what users need is collected: not the JS unit tests, nor the test-only axe-core
    assert (collected / "js" / "table" / "main.js").exists()
    assert not (collected / "js" / "table" / "tests").exists()
    assert not (collected / "vendor" / "axe-core").exists()
    with daphne(tmp_path, env) as base:
        status, _, body = fetch(base + "/no/such/page/")
        assert status == 404
        assert b"Page not found" in body and b"URLconf" not in body and b"Traceback" not in body

        status, _, home = fetch(base + "/")
        assert status == 200
        css = re.search(rb'href="(/static/css/site\.[0-9a-f]{12}\.css)"', home)
        assert css, "the stylesheet is not served under a hashed name"
        for enc in ("br", "gzip"):
            status, headers, _ = fetch(base + css.group(1).decode(), **{"Accept-Encoding": enc})
            assert status == 200 and headers.get("Content-Encoding") == enc
            assert "immutable" in headers["Cache-Control"]
            assert "max-age=315360000" in headers["Cache-Control"]
        # plain http works: no redirect to https, no secure-only cookies
        status, headers, _ = fetch(base + "/accounts/login/")
        assert status == 200 and "secure" not in headers.get("Set-Cookie", "").lower()

    # the hashed modules import each other by their hashed names (cached for good too)
    main = next((collected / "js" / "table").glob("main.*.js"))
    assert re.search(r'from "\./app\.[0-9a-f]{12}\.js"', main.read_text())


def modules_of_the_table() -> set[str]:
    """Every module main.js imports, directly or not."""
    seen, todo = set(), ["main.js"]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        todo.extend(IMPORT.findall((TABLE_JS / name).read_text()))
    return seen


@pytest.mark.django_db
def test_table_page_preloads_every_module(client, make_user):
    from games import services
    from games.models import Room
    from games.rooms import ensure_default_rooms

    ensure_default_rooms(Room)
    user = make_user("alice")
    client.force_login(user)
    table = services.play_computer(user=user, mode="classic", level=1)
    page = client.get(table.get_absolute_url()).content.decode()
    link = r'<link rel="modulepreload" href="/static/js/table/([\w-]+\.js)"'
    preloaded = set(re.findall(link, page))
    modules = modules_of_the_table()
    assert len(modules) >= 10 and preloaded == modules
