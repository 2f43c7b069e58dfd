"""The installable app and offline play against the computer (docs/offline.md): the offline
page, the service worker (``/sw.js``) and the upload of finished offline games.

The game itself runs in the browser: Pyodide in a web worker with the engine package that
``manage.py build_offline_engine`` builds from ``games/engine``, ``games/bots`` and
``games/local``; the page is the table app over its local transport.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

from csp.decorators import csp_update
from django.conf import settings
from django.contrib.staticfiles.storage import staticfiles_storage
from django.http import HttpResponse, JsonResponse
from django.http.request import RawPostDataException
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST, require_safe

from core.jsonlimits import JSONBadCharacter
from core.jsonlimits import loads as json_loads

from . import services
from .bots.levels import LEVEL_TABLE
from .models import Mode
from .offline_package import STATIC_NAME as ENGINE_PACKAGE

OFFLINE_PYODIDE_VERSION = "0.27.7"
PYODIDE_DIR = f"vendor/pyodide/{OFFLINE_PYODIDE_VERSION}/"
# What Pyodide fetches from its folder (by these names: its indexURL is the folder).
PYODIDE_FILES = ("pyodide.asm.js", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")
UPLOAD_MAX_BYTES = 1_048_576  # a long Rummy game's record is about 200 KB

# The page's own files and the table's (every module main.js imports, hashed names).
SHELL_FILES = (
    "css/site.css", "css/dark.css", "css/lobby.css", "css/table.css", "css/offline.css",
    "js/site.js",
    # modules outside MODULE_DIRS that the table's import (a test follows every import)
    "js/attention.js", "js/clipboard.js",
    "icons/favicon.svg", "icons/eye.svg", "icons/icon-192.png", "icons/icon-512.png",
    "icons/icon-maskable-512.png",
)
MODULE_DIRS = ("js/table/", "js/offline/")


def _module_files() -> list[str]:
    """Every ES module of the table and of the offline game, by name."""
    from django.contrib.staticfiles import finders

    names = []
    for folder in MODULE_DIRS:
        for finder in finders.get_finders():
            for path, _storage in finder.list(["tests", "package.json", "*.md"]):
                path = path.replace("\\", "/")
                if path.startswith(folder) and path.endswith(".js") and "/tests/" not in path:
                    names.append(path)
    return sorted(set(names))


def _static_urls() -> dict[str, str]:
    return {
        "worker": staticfiles_storage.url("js/offline/worker.js"),
        "pyodide": staticfiles_storage.url(PYODIDE_DIR + "pyodide.mjs"),
        "indexURL": settings.STATIC_URL + PYODIDE_DIR,
        "engine": staticfiles_storage.url(ENGINE_PACKAGE),
    }


def precache_urls() -> list[str]:
    """What the service worker stores on install: the offline page, its shell, the table's
    modules, Pyodide and the engine package."""
    urls = [reverse("games:offline"), reverse("manifest")]
    urls += [staticfiles_storage.url(n) for n in SHELL_FILES]
    urls += [staticfiles_storage.url(n) for n in _module_files()]
    urls += [settings.STATIC_URL + PYODIDE_DIR + n for n in PYODIDE_FILES]
    urls += list(_static_urls().values())
    urls.remove(settings.STATIC_URL + PYODIDE_DIR)
    return list(dict.fromkeys(urls))


@require_safe
@csp_update({"script-src": ["'wasm-unsafe-eval'"]})
def offline_page(request):
    """Play the computer on this device, with or without a network."""
    data = {
        **_static_urls(),
        "signed_in": request.user.is_authenticated,
        # whose games the device's are (static/js/offline/stats.js ``mine``): "" signed out
        "owner": str(request.user.pk) if request.user.is_authenticated else "",
        "name": request.user.public_name if request.user.is_authenticated else "You",
    }
    return render(request, "games/offline.html", {
        "offline_data": data,
        "modes": Mode.choices,
        "levels": [(lv.number, lv.name) for lv in LEVEL_TABLE],
    })


def _development_fingerprint(urls: list[str]) -> str:
    """With DEBUG the static files keep their names when they change: the worker's version
    then follows their modification times and sizes, so an edit installs a new worker."""
    from django.contrib.staticfiles import finders

    parts = []
    for url in urls:
        if url.startswith(settings.STATIC_URL):
            path = finders.find(url.removeprefix(settings.STATIC_URL))
            if path:
                st = Path(path).stat()
                parts.append(f"{url}:{st.st_mtime_ns}:{st.st_size}")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


@require_safe
@never_cache
def service_worker(request):
    """The service worker, at the site's root so that its scope is the whole site."""
    urls = precache_urls()
    body = render_to_string("offline/sw.js", {
        "precache_json": json.dumps(urls), "static_url": settings.STATIC_URL})
    if settings.DEBUG:
        body += f"// development files: {_development_fingerprint(urls)}\n"
    version = hashlib.sha256(body.encode()).hexdigest()[:16]
    body = body.replace("__BUILD__", version)
    response = HttpResponse(body, content_type="application/javascript; charset=utf-8")
    response["Service-Worker-Allowed"] = "/"
    return response


def _error(code: str, message: str, status: int) -> JsonResponse:
    return JsonResponse({"ok": False, "error": {"code": code, "message": message}},
                        status=status)


@require_POST
def offline_upload(request):
    """A finished offline game (the browser's ``ginsite-game/1`` record, JSON) for the
    signed-in player's archive. 201 stored, 200 already stored, 202 a game against the
    Expert whose moves are being checked (post it again later); 4xx with the reason."""
    if not request.user.is_authenticated:
        return _error("login_required", "Sign in to keep your offline games.", 401)
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = 0
    if length > UPLOAD_MAX_BYTES:
        return _error("too_large", "The record is larger than 1 MB: not an offline game.", 413)
    try:
        body = request.body
    except RawPostDataException:  # a form upload: its stream was read as a form
        return _error("bad_json", "The upload is not valid JSON.", 400)
    if len(body) > UPLOAD_MAX_BYTES:
        return _error("too_large", "The record is larger than 1 MB: not an offline game.", 413)
    try:
        payload = json_loads(body)
    except JSONBadCharacter as exc:
        return _error("bad_json", str(exc), 400)
    except ValueError:  # not UTF-8, not JSON, or nested too deep
        return _error("bad_json", "The upload is not valid JSON.", 400)
    try:
        upload = services.offline_game_store(user=request.user, payload=payload)
    except services.OfflineUploadError as exc:
        return _error(exc.code, str(exc), exc.status)
    if upload.game is None:  # (its Expert moves are being checked)
        return JsonResponse({"ok": True, "created": False, "pending": True, "message": (
            "The server is playing the Expert's moves again to check them: the game joins "
            "your archive in a minute or so.")}, status=202)
    return JsonResponse({"ok": True, "created": upload.created, "pending": False,
                         "game": {"id": upload.game.pk,
                                  "url": upload.game.get_absolute_url()}},
                        status=201 if upload.created else 200)
