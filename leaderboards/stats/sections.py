"""The statistics' sections of the profile page (registered from ``StatsConfig.ready``)."""
from __future__ import annotations

from accounts.profile_sections import ProfileSection, profile_section_register

from . import selectors
from .models import PEOPLE


def statistics_context(*, profile_user, viewer):
    own = getattr(viewer, "is_authenticated", False) and viewer.pk == profile_user.pk
    tables = selectors.stats_tables(user=profile_user, opponents=(PEOPLE,), own=own)
    if not tables:
        return {"empty": True, "own": own}
    return {
        "tables": tables,
        "modes": tables[0]["modes"],
        "bars": selectors.results_by_mode(tables),
        "pph": selectors.points_per_hand_by_month(user=profile_user, opponents=(PEOPLE,)),
        "favourites": selectors.favourite_opponents(user=profile_user),
        "own": own,
    }


def head_to_head_context(*, profile_user, viewer):
    record = selectors.head_to_head(user=viewer, opponent=profile_user) if getattr(
        viewer, "is_authenticated", False) else None
    if record is None or not record.games:
        return None
    return {"record": record}


def accuracy_context(*, profile_user, viewer):
    """Average accuracy per mode over the player's analysed games, with its trend; no
    section when none is analysed."""
    accuracy = selectors.accuracy_summary(user=profile_user, viewer=viewer)
    return {"accuracy": accuracy} if accuracy else None


def register() -> None:
    profile_section_register(ProfileSection(
        key="accuracy", title="Accuracy",
        template_name="stats/_profile_accuracy.html",
        get_context=accuracy_context, order=35,
    ))
    profile_section_register(ProfileSection(
        key="statistics", title="Statistics",
        template_name="stats/_profile_statistics.html",
        get_context=statistics_context, order=30,
    ))
    profile_section_register(ProfileSection(
        key="head-to-head", title="Head to head",
        template_name="stats/_profile_head_to_head.html",
        get_context=head_to_head_context, order=50,
    ))
