"""Every URL pattern of the site, as written (used by the scans that request them all)."""
from __future__ import annotations

from collections.abc import Iterator

from django.urls import URLPattern, URLResolver, get_resolver


def url_routes(resolver: URLResolver | None = None, prefix: str = "") -> Iterator[str]:
    """Each pattern's route without the leading "/", included ones joined to their prefix."""
    resolver = resolver or get_resolver()
    for p in resolver.url_patterns:
        route = prefix + str(p.pattern).lstrip("^").rstrip("$")
        if isinstance(p, URLResolver):
            yield from url_routes(p, route)
        elif isinstance(p, URLPattern):
            yield route


def has_params(route: str) -> bool:
    """Does ``route`` take parameters (a converter or a regular expression group)?"""
    return "<" in route or "(" in route or "\\" in route or "[" in route
