"""Buttons other apps put under the name on a player's profile (Message, Add contact,
Invite to a table).

``accounts`` sits at the bottom of the stack, so the app that owns the actions registers
them, typically in its ``AppConfig.ready()``::

    from accounts.profile_actions import ProfileActions, profile_actions_register

    profile_actions_register(ProfileActions(
        key="social", template_name="social/_profile_actions.html",
        get_context=lambda *, profile_user, viewer: {...},
    ))

The profile header includes each template with the returned dict as ``actions`` (plus the
page's context); ``get_context`` returns ``None`` to show nothing for this viewer.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ProfileActions:
    key: str
    template_name: str
    get_context: Callable[..., dict[str, Any] | None]
    order: int = 100


@dataclass(frozen=True)
class RenderedActions:
    key: str
    template_name: str
    context: dict[str, Any]


_ACTIONS: dict[str, ProfileActions] = {}


def profile_actions_register(actions: ProfileActions) -> None:
    """Add (or replace, by key) a group of buttons on the profile page."""
    _ACTIONS[actions.key] = actions


def profile_actions_unregister(key: str) -> None:
    _ACTIONS.pop(key, None)


def profile_actions_for(*, profile_user, viewer) -> list[RenderedActions]:
    """The button groups to show on ``profile_user``'s page to ``viewer``, in order."""
    rendered = []
    for group in sorted(_ACTIONS.values(), key=lambda g: (g.order, g.key)):
        context = group.get_context(profile_user=profile_user, viewer=viewer)
        if context is not None:
            rendered.append(RenderedActions(group.key, group.template_name, context))
    return rendered
