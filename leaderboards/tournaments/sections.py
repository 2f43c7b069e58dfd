"""The tournaments' section of the profile page (registered from ``TournamentsConfig.ready``,
as the statistics' and the ratings' sections are from theirs)."""
from __future__ import annotations

from accounts.profile_sections import ProfileSection, profile_section_register

from . import selectors


def results_context(*, profile_user, viewer):
    return {"results": selectors.user_results(profile_user)}


def register() -> None:
    profile_section_register(ProfileSection(
        key="tournaments", title="Tournaments",
        template_name="tournaments/_profile.html",
        get_context=results_context, order=40,
    ))
