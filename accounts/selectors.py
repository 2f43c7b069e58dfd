"""Reads about users and their public profiles."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import F, QuerySet

from .avatars import default_avatar_data_uri
from .countries import country_name, flag
from .models import ApiToken, User
from .timezones import local_now


def user_list_active() -> QuerySet[User]:
    return User.objects.filter(is_active=True)


def user_get_by_username(*, username: str) -> User:
    """The active user with this username, matched exactly first, then ignoring case.

    Raises ``User.DoesNotExist``.
    """
    users = user_list_active()
    try:
        return users.get(username=username)
    except User.DoesNotExist:
        match = users.filter(username__iexact=username).order_by("pk").first()
        if match is None:
            raise
        return match


def user_closed_exists(*, username: str) -> bool:
    """Is ``username`` a closed account (its games still name it)?"""
    return User.objects.filter(username=username, is_active=False).exists()


def user_avatar_url(*, user) -> str:
    """The uploaded avatar's URL, or the generated default as a ``data:`` URI."""
    if user is None or not getattr(user, "is_authenticated", False):
        return default_avatar_data_uri(name="?", username="")
    if user.avatar:
        return user.avatar.url
    return default_avatar_data_uri(name=user.public_name, username=user.username)


@dataclass(frozen=True)
class PublicProfile:
    user: User
    country_code: str
    country_name: str
    country_flag: str
    time_zone: str
    local_time: datetime
    member_since: datetime


def profile_get_public(*, user: User) -> PublicProfile:
    """What a profile page shows about a user (statistics come from other apps)."""
    return PublicProfile(
        user=user,
        country_code=user.country,
        country_name=country_name(user.country),
        country_flag=flag(user.country),
        time_zone=user.time_zone,
        local_time=local_now(user.time_zone),
        member_since=user.date_joined,
    )


def api_tokens_of(*, user: User) -> QuerySet[ApiToken]:
    """``user``'s API tokens, live ones first, newest first."""
    return ApiToken.objects.filter(user=user).order_by(
        F("revoked_at").asc(nulls_first=True), "-created", "-id")
