from django.contrib import admin
from django.urls import include, path, re_path

from accounts.email_page import EmailPage

from . import rules as rules_page
from . import views

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("status/", views.service_status, name="service_status"),
    path("manifest.webmanifest", views.manifest, name="manifest"),
    path("favicon.ico", views.favicon),
    path("admin/", admin.site.urls),
    path("rules/", rules_page.rules, name="rules"),
    path("help/", rules_page.help_page, name="help"),
    path("api/docs/", views.api_docs, name="api_docs"),
    path("api/docs/gin_bot.py", views.api_docs, {"name": "gin_bot.py"}, name="api_docs_bot"),
    path("api/docs/bot-api.md", views.api_docs, {"name": "bot-api.md"}, name="api_docs_text"),
    path("api/docs/<slug:page>/", views.api_docs, name="api_docs_page"),
    # allauth's e-mail page, saying why a link was not sent again (accounts.email_page)
    path("accounts/email/", EmailPage.as_view(), name="account_email"),
    path("accounts/", include("allauth.urls")),
    path("", include("accounts.urls")),
    path("", include("games.urls")),
    path("", include("social.urls")),
    path("", include("leaderboards.urls")),
    path("", include("leaderboards.tournaments.urls")),
    path("", include("leaderboards.stats.urls")),
    # Uploaded avatars. Behind a reverse proxy, let it serve MEDIA_ROOT instead.
    re_path(r"^media/(?P<path>.*)$", views.media),
]

handler403 = "ginsite.views.permission_denied"
handler404 = "ginsite.views.page_not_found"
handler500 = "ginsite.views.server_error"
