"""The URLconf of a request ``core.middleware.RefuseNulCharacters`` refused: every address
answers the site's 400 page (or 413), through the rest of the middleware as any page (its
CSRF cookie, so that the page's Log out works; its security headers; the person signed in),
while the site's own routes stay for ``{% url %}``. The view reads nothing of the request's
body, and takes no CSRF check (which would read the form)."""
from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import include, path, re_path
from django.views.decorators.csrf import csrf_exempt


@csrf_exempt
def refused(request: HttpRequest) -> HttpResponse:
    status, _code, message = request.refused  # type: ignore[attr-defined]
    return render(request, "400.html", {"message": message, "status": status}, status=status)


urlpatterns = [re_path(r"", refused), path("", include(settings.ROOT_URLCONF))]
