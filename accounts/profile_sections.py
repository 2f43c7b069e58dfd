"""Sections other apps add to the public profile page (statistics, recent games, ratings).

``accounts`` sits at the bottom of the stack and imports nothing above it, so apps higher
up register their sections, typically from their ``AppConfig.ready()``::

    from accounts.profile_sections import ProfileSection, profile_section_register

    profile_section_register(
        ProfileSection(
            key="ratings",
            title="Ratings",
            template_name="leaderboards/_profile_ratings.html",
            get_context=lambda *, profile_user, viewer: {"ratings": ...},
            order=20,
        )
    )

The page renders each section as ``<section aria-labelledby=...><h2>{{ title }}</h2>``
followed by the included template, which receives the returned dict as ``section``
(plus ``profile_user`` and ``user``). ``get_context`` may return ``None`` to hide the
section for this profile or this viewer.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ProfileSection:
    key: str
    title: str
    template_name: str
    get_context: Callable[..., dict[str, Any] | None] = field(
        default=lambda *, profile_user, viewer: {}
    )
    order: int = 100


@dataclass(frozen=True)
class RenderedSection:
    key: str
    title: str
    template_name: str
    context: dict[str, Any]


_SECTIONS: dict[str, ProfileSection] = {}


def profile_section_register(section: ProfileSection) -> None:
    """Add (or replace, by key) a section of the public profile page."""
    _SECTIONS[section.key] = section


def profile_section_unregister(key: str) -> None:
    _SECTIONS.pop(key, None)


def profile_sections_for(*, profile_user, viewer) -> list[RenderedSection]:
    """The sections to show on ``profile_user``'s page to ``viewer``, in order."""
    rendered = []
    for section in sorted(_SECTIONS.values(), key=lambda s: (s.order, s.key)):
        context = section.get_context(profile_user=profile_user, viewer=viewer)
        if context is None:
            continue
        rendered.append(
            RenderedSection(
                key=section.key,
                title=section.title,
                template_name=section.template_name,
                context=context,
            )
        )
    return rendered
