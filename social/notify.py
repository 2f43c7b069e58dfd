"""Delivery of frames to the per-user notification sockets (``/ws/notify/``).

Every open tab of a user joins the channel-layer group ``user.<id>``; anything that wants to
tell a user something sends a ``notify.frame`` event to that group and each tab's consumer
forwards the frame as JSON. Services call :func:`notify_users` from ``transaction.on_commit``
so nobody hears about a change that was rolled back. The channel layer delivers at most once:
frames are notifications, the database is the truth, and a reconnecting client re-reads
counts from the ``hello`` frame.
"""
from __future__ import annotations

from asgiref.sync import async_to_sync
from django.urls import reverse

from core import channels
from core.channels import notify_event, user_group

__all__ = ["anotify_many", "anotify_users", "notify_many", "notify_users", "user_group",
           "user_ref"]


def user_ref(user) -> dict:
    """The public description of a user that frames carry."""
    return {
        "id": user.pk,
        "username": user.username,
        "name": user.display_name or user.username,
        "url": reverse("accounts:profile", kwargs={"username": user.username}),
    }


async def anotify_users(user_ids, frame: dict) -> None:
    """Send ``frame`` to each user's group (``core.channels``: retried, then logged; the
    database stays the truth)."""
    event = notify_event(frame)
    await channels.asend([(user_group(uid), event) for uid in dict.fromkeys(user_ids)])


def notify_users(user_ids, frame: dict) -> None:
    """Send ``frame`` to every open notification socket of each user in ``user_ids``."""
    async_to_sync(anotify_users)(list(user_ids), frame)


async def anotify_many(batches) -> None:
    for user_ids, frame in batches:
        await anotify_users(user_ids, frame)


def notify_many(batches) -> None:
    """Several :func:`notify_users` calls in one hop to the event loop."""
    async_to_sync(anotify_many)([(list(ids), frame) for ids, frame in batches])
