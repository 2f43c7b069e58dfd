"""Chat at a table."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.db import transaction

from core.cache import count_hit
from core.channels import Outbox
from core.text import has_controls, shows_something

from .. import broadcast, conf, frames
from ..exceptions import ChatControls, ChatEmpty, ChatTooLong, Forbidden, RateLimited, TableNotFound
from ..models import ChatMessage, Seat, Table
from .locking import after_commit

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser

    from accounts.models import User

CHAT_MAX = 300


def chat_post(*, table_id: int, user: User | AnonymousUser | None, text: Any,
              outbox: Outbox | None = None) -> ChatMessage:
    """Post a chat line; its frame goes out after the commit (into ``outbox``, if given)."""
    if user is None or not user.is_authenticated:
        raise Forbidden("Log in to chat.")
    if not isinstance(text, str):
        raise ChatEmpty()
    text = " ".join(text.split())
    if not shows_something(text):
        raise ChatEmpty()
    if has_controls(text):
        raise ChatControls()
    if len(text) > CHAT_MAX:
        raise ChatTooLong()
    limit, window = conf.get("CHAT_RATE")
    key = f"games:chat-rate:{user.pk}"
    if count_hit(key, window) > limit:
        raise RateLimited()
    table = Table.objects.filter(pk=table_id).first()
    if table is None:
        raise TableNotFound()
    with transaction.atomic():
        message = ChatMessage.objects.create(table=table, user=user, text=text)
        seat_by_user = {
            s.user_id: s.index for s in Seat.objects.filter(table=table, user=user)
            if s.user_id is not None
        }
        data = frames.chat_data(message, seat_by_user)
        sender_id = user.pk
        after_commit(
            lambda: broadcast.send_chat(table_id=table.pk, message=data, sender_id=sender_id,
                                        outbox=outbox)
        )
    return message
