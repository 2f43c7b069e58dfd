import functools
import re

from django.conf import settings
from django.http import Http404, HttpResponse, HttpResponsePermanentRedirect, JsonResponse
from django.shortcuts import render
from django.templatetags.static import static
from django.urls import reverse
from django.utils.safestring import mark_safe
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe
from django.views.static import serve as static_serve

from games import selectors as games_selectors
from social import selectors as social_selectors

from . import health


@require_safe
def home(request):
    # A player coming back (the installed app opens here) finds their games in progress first.
    my_tables = games_selectors.user_live_tables(request.user)
    # and the invitations that came while they were away (the live toast only reaches a
    # player who is online)
    invitations = social_selectors.invitations_waiting(request.user)
    # and the contact requests they have still to answer (the same: seen live only online)
    contact_requests = social_selectors.requests_waiting(request.user)
    return render(request, "home.html", {"my_tables": my_tables, "invitations": invitations,
                                         "contact_requests": contact_requests})


@never_cache
@require_safe
async def healthz(request):
    """``/healthz`` through Django (the test client, a WSGI server). Under Daphne the ASGI
    application answers it before Django (``health.HealthEndpoint``), so that it never waits
    on what an outage fills; both give the same answer (``health.report``)."""
    status, body = await health.report()
    return JsonResponse(body, status=status)


@never_cache
@require_safe
async def service_status(request):
    """``/status/`` through Django (the test client); Daphne answers it before Django, as
    ``/healthz`` (``health.HealthEndpoint``)."""
    status, body = await health.report()
    return HttpResponse(health.status_page(body), status=status)


@require_safe
def favicon(request):
    # Resolved per request: with hashed static files the name is known only at run time.
    return HttpResponsePermanentRedirect(static("icons/favicon.svg"))


@require_safe
def manifest(request):
    data = {
        "name": "Gin Rummy",
        "short_name": "Gin Rummy",
        "description": "Play Gin Rummy and Rummy online, free.",
        "start_url": "/",
        "scope": "/",
        "display": "standalone",
        "background_color": "#0f3d2e",
        "theme_color": "#0f3d2e",
        "icons": [
            {"src": static("icons/icon-192.png"), "sizes": "192x192", "type": "image/png"},
            {"src": static("icons/icon-512.png"), "sizes": "512x512", "type": "image/png"},
            {
                "src": static("icons/icon-maskable-512.png"),
                "sizes": "512x512",
                "type": "image/png",
                "purpose": "maskable",
            },
        ],
        # the installed app's long-press menu, and the install dialog's screenshots
        # (docs/offline.md; made by bench/offline.py --screenshots)
        "shortcuts": [
            {"name": "Play the computer", "short_name": "Play offline",
             "description": "A game against the computer, with or without a network",
             "url": reverse("games:offline"),
             "icons": [{"src": static("icons/icon-192.png"), "sizes": "192x192",
                        "type": "image/png"}]},
            {"name": "Lobby", "short_name": "Lobby", "description": "Rooms and tables",
             "url": reverse("games:lobby"),
             "icons": [{"src": static("icons/icon-192.png"), "sizes": "192x192",
                        "type": "image/png"}]},
        ],
        "screenshots": [
            {"src": static("icons/screenshot-phone.png"), "sizes": "390x844",
             "type": "image/png", "form_factor": "narrow",
             "label": "A game against the computer on a phone"},
            {"src": static("icons/screenshot-wide.png"), "sizes": "1280x800",
             "type": "image/png", "form_factor": "wide",
             "label": "The offline game on a desktop"},
        ],
    }
    response = JsonResponse(data)
    response["Content-Type"] = "application/manifest+json"
    return response


# The API's documentation, served by the site itself (the settings page and the API's 404
# point here): a page of the site made from the Markdown (its 36 KB of plain text read at a
# desktop's width on a phone), the Markdown itself for programs, and the example bot that it
# runs verbatim.
API_DOCS = {
    "api/docs/bot-api.md": "docs/bot-api.md",
    "api/docs/gin_bot.py": "docs/examples/gin_bot.py",
}
# The pages made from the Markdown: the API's, and the two it leans on for what a bot reads
# (the table socket's frames, the records it exports); their mentions link to each other.
API_DOC_PAGES = {
    "": ("docs/bot-api.md", "The API"),
    "protocol": ("docs/protocol.md", "The table protocol"),
    "records": ("docs/records.md", "Game records"),
}


SITE_CODE = re.compile(r"<!-- site code -->.*?<!-- /site code -->\n?", re.S)


@functools.lru_cache(maxsize=8)
def _docs_html(source: str, mtime: float) -> str:
    """A Markdown file of this repository (trusted) as HTML, each table in a box that scrolls
    sideways on a phone, its mentions of the served pages linked; made again when the file
    changes."""
    import markdown

    text = (settings.BASE_DIR / source).read_text(encoding="utf-8")
    # notes for the site's own developers are not the API's users' business
    text = SITE_CODE.sub("", text)
    # (aligned columns as align="…", not style="…", which the CSP refuses)
    html = markdown.markdown(text, extensions=["tables", "fenced_code", "toc"],
                             extension_configs={"tables": {"use_align_attribute": True}})
    html = (html.replace("<table>", '<div class="table-scroll"><table>')
            .replace("</table>", "</table></div>"))
    for name, (path, title) in API_DOC_PAGES.items():
        if path != source:
            # named as the page is titled: "docs/protocol.md" read as a file to look for
            url = reverse("api_docs_page", kwargs={"page": name}) if name else reverse("api_docs")
            html = html.replace(path, f'<a href="{url}">{title[0].lower() + title[1:]}</a>')
    return html


@require_safe
def api_docs(request, name: str = "", page: str = ""):
    if not name:
        if page not in API_DOC_PAGES:
            raise Http404("No such page of the documentation.")
        source, title = API_DOC_PAGES[page]
        mtime = (settings.BASE_DIR / source).stat().st_mtime
        response = render(request, "api_docs.html", {
            "html": mark_safe(_docs_html(source, mtime)),  # noqa: S308 (our own file)
            "title": title, "source": source,
        })
    else:
        path = settings.BASE_DIR / API_DOCS[f"api/docs/{name}"]
        response = HttpResponse(path.read_text(encoding="utf-8"),
                                content_type="text/plain; charset=utf-8")
    response["Cache-Control"] = "public, max-age=3600"
    return response


MEDIA_PATH_MAX = 255  # (an avatar's path is about 60 characters)


def media(request, path: str):
    """An uploaded file (avatars) from MEDIA_ROOT; 404 for anything else. A path of 4,000
    characters reached the file system ("File name too long"): a 500."""
    if len(path) > MEDIA_PATH_MAX:
        raise Http404("No such file.")
    try:
        return static_serve(request, path, document_root=settings.MEDIA_ROOT)
    except OSError:
        raise Http404("No such file.") from None


def permission_denied(request, exception=None):
    return render(request, "403.html", status=403)


def page_not_found(request, exception=None):
    return render(request, "404.html", status=404)


def server_error(request):
    return render(request, "500.html", status=500)
