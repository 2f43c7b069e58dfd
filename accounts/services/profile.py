"""Writes to users and their profiles."""
from __future__ import annotations

import logging

from django.core.exceptions import ValidationError
from django.core.files.storage import Storage
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.db.models import Q

from core.text import skeleton

from ..avatars import avatar_normalise
from ..models import User
from ..names import kept_for_the_site

logger = logging.getLogger(__name__)

PROFILE_TEXT_FIELDS = ("display_name", "country", "bio", "time_zone")


def avatar_file_delete(storage: Storage, name: str) -> None:
    try:
        storage.delete(name)
    except OSError:  # pragma: no cover - a missing or locked file must not break a save
        logger.warning("could not delete avatar file %s", name, exc_info=True)


def display_name_taken(user: User, name: str) -> str:
    """Why ``user`` may not show ``name``, or "": another account's username (a message from
    "alice" that was carol's, seen from outside), or a name of the site's computer players.
    The name ``user`` shows already is theirs: not judged again (a later, stricter rule that
    finds it too like another's would have stopped them saving their country or avatar)."""
    if not name or name == user.display_name:
        return ""
    bare = name.removeprefix("@").strip()
    kept = kept_for_the_site(bare)  # (a player shown as "Administrator" had been allowed)
    if kept:
        return kept
    if User.objects.filter(username__iexact=bare).exclude(pk=user.pk).exists():
        return "That is another player's username: choose a name of your own."
    # drawn like one: "bоb2" with a Cyrillic "о" showed as bob2 (each username's look is
    # stored with it: User.username_look), or with a capital "I" for a small "l" ("aIice")
    drawn = Q(username_look=skeleton(bare)) | Q(username_shape=skeleton(bare, capital_i=True))
    if User.objects.filter(drawn).exclude(pk=user.pk).exists():
        return "That looks like another player's username: choose a name of your own."
    return ""


def profile_update(
    *,
    user: User,
    display_name: str,
    country: str,
    bio: str,
    time_zone: str,
    avatar: UploadedFile | None = None,
    remove_avatar: bool = False,
) -> User:
    """Update a user's public profile in one transaction.

    ``avatar`` is an uploaded file (checked and normalised here); ``remove_avatar`` goes
    back to the generated default. Either everything is saved or, on a
    ``ValidationError``, nothing is: no field and no file. A replaced or removed picture
    is deleted from storage once the change is committed.
    """
    if avatar is not None and remove_avatar:
        raise ValidationError(
            {"avatar": "Choose either a new picture or removing the current one, not both."}
        )
    values = {
        "display_name": " ".join((display_name or "").split()),
        "country": (country or "").strip().upper(),
        "bio": (bio or "").replace("\r\n", "\n").strip(),
        "time_zone": (time_zone or "").strip(),
    }
    candidate = User(pk=user.pk, username=user.username, **values)
    errors: dict[str, list[str]] = {}
    try:
        candidate.clean_fields(exclude=[f.name for f in User._meta.fields if f.name not in values])
    except ValidationError as exc:
        errors.update(exc.message_dict)
    taken = display_name_taken(user, values["display_name"])
    if taken:
        errors.setdefault("display_name", []).append(taken)
    new_avatar = None
    if avatar is not None:
        try:
            new_avatar = avatar_normalise(avatar)
        except ValidationError as exc:
            errors.update(exc.message_dict)
    if errors:
        raise ValidationError(errors)

    saved_name = None
    try:
        with transaction.atomic():
            locked = User.objects.select_for_update().get(pk=user.pk)
            old_name = locked.avatar.name or ""
            for field, value in values.items():
                setattr(locked, field, value)
            update_fields = list(values)
            if new_avatar is not None:
                locked.avatar.save(new_avatar.name, new_avatar, save=False)
                saved_name = locked.avatar.name
                update_fields.append("avatar")
            elif remove_avatar and old_name:
                locked.avatar = ""
                update_fields.append("avatar")
            locked.save(update_fields=update_fields)
            if old_name and "avatar" in update_fields:
                storage = locked.avatar.storage
                transaction.on_commit(lambda: avatar_file_delete(storage, old_name))
    except BaseException:
        if saved_name:
            avatar_file_delete(User._meta.get_field("avatar").storage, saved_name)
        raise

    for field in values:
        setattr(user, field, getattr(locked, field))
    user.avatar = locked.avatar.name
    return user


ALERT_FIELDS = ("alert_sound", "alert_vibrate", "alert_notifications", "alert_title")


def alert_preferences_update(*, user: User, **choices: bool) -> User:
    """Save which alerts ``user`` wants (``alert_sound``, ``alert_vibrate``,
    ``alert_notifications``, ``alert_title``); a field not given is left as it is."""
    unknown = set(choices) - set(ALERT_FIELDS)
    if unknown:
        raise ValidationError(f"Unknown alert settings: {', '.join(sorted(unknown))}.")
    for name, value in choices.items():
        setattr(user, name, bool(value))
    if choices:
        user.save(update_fields=list(choices))
    return user


def bots_may_challenge_update(*, user: User, allowed: bool) -> User:
    """Whether computer programs (bot accounts) may challenge ``user`` (docs/bot-api.md)."""
    user.bots_may_challenge = bool(allowed)
    user.save(update_fields=["bots_may_challenge"])
    return user
