"""The JSON frames of the social app, built in one place.

Services, presence and views describe *what* happened; these builders give it the shape the
notification socket and the page scripts read (docs/protocol.md, "Notifications"). They only
shape values they are given: no queries, no cache, no sending (services send them after the
commit through :mod:`social.notify`).
"""
from __future__ import annotations

from .notify import user_ref

# --- Objects inside frames -------------------------------------------------------------------

def message_frame(message, sender) -> dict:
    """One private message as the socket, the ``ack`` and the history endpoint carry it."""
    return {
        "id": message.pk,
        "conversation": message.conversation_id,
        "sender": user_ref(sender),
        "body": message.body,
        "created_at": message.created_at.isoformat(),
    }


def invitation_frame(invitation, table) -> dict:
    """One invitation; ``table`` is its :class:`social.tables.TableInfo` (None once gone)."""
    return {
        "id": invitation.pk,
        "from": user_ref(invitation.from_user),
        "to": user_ref(invitation.to_user),
        "table": {"id": invitation.table_id, "name": table.name if table else "",
                  "url": table.url if table else ""},
        "status": invitation.status,
        "created_at": invitation.created_at.isoformat(),
    }


def challenge_frame(challenge) -> dict:
    """One challenge as the API, the socket and the page read it; ``table`` is set once it
    was accepted (the table where both are seated)."""
    table = None
    if challenge.table_id is not None:
        table_id = int(challenge.table_id)
        table = {"id": table_id, "url": f"/tables/{table_id}/",
                 "socket": f"/ws/table/{table_id}/"}
    return {
        "id": challenge.pk,
        "from": {**user_ref(challenge.from_user), "bot": challenge.from_user.is_bot},
        "to": {**user_ref(challenge.to_user), "bot": challenge.to_user.is_bot},
        "mode": challenge.mode,
        "target": challenge.target,
        "seconds_per_turn": challenge.seconds_per_turn,
        "rated": challenge.rated,
        "status": challenge.status,
        "created_at": challenge.created_at.isoformat(),
        "table": table,
    }


def contact_entry(user, presence, rating) -> dict:
    """A contact with presence and rating label, as ``contacts/list.json`` lists them."""
    return {**user_ref(user), **presence.as_frame(), "rating": rating}


# --- Notification frames ---------------------------------------------------------------------

def contact_added(other, presence, rating: str | None = None, *,
                  accepted: bool = False) -> dict:
    """``other`` became a contact; ``presence`` is their :class:`social.presence.Presence`,
    ``rating`` their Classic Gin rating label as the contact list shows it; ``accepted``:
    they accepted your request (you are told so)."""
    return {"type": "contact", "event": "added", "user": user_ref(other), **presence.as_frame(),
            "rating": rating, "accepted": accepted}


def contact_removed(other) -> dict:
    return {"type": "contact", "event": "removed", "user": user_ref(other)}


def contact_request_added(event: str, request_id: int, other) -> dict:
    """A request ``received`` from, or ``sent`` to, ``other``."""
    return {"type": "contact_request", "event": event,
            "request": {"id": request_id, "user": user_ref(other)}}


def contact_request_removed(request_id: int) -> dict:
    """A request accepted, declined, cancelled or ended by a block."""
    return {"type": "contact_request", "event": "removed", "request": {"id": int(request_id)}}


def message_event(message: dict, *, mine: bool, with_user, unread: dict | None = None) -> dict:
    """A private message for one participant's tabs; ``message`` is a :func:`message_frame`,
    ``with_user`` the other participant, ``unread`` the counts when they changed."""
    frame = {"type": "message", "message": message, "mine": mine, "with": user_ref(with_user)}
    if unread is not None:
        frame["unread"] = unread
    return frame


def unread_counts(total: int, conversation_id: int, count: int) -> dict:
    """The ``unread`` object of a message frame: the user's total and this conversation's."""
    return {"total": total, "conversation": conversation_id, "count": count}


def unread(total: int, conversation_id: int, count: int, *, deleted: bool = False) -> dict:
    """The unread counts changed (read in another tab, or the conversation deleted)."""
    frame = {"type": "unread", **unread_counts(total, conversation_id, count)}
    if deleted:
        frame["deleted"] = True
    return frame


def invitation_event(event: str, invitation, table) -> dict:
    """An invitation ``received``, ``sent``, or closed (its new status as the event)."""
    return {"type": "invitation", "event": event, "invitation": invitation_frame(invitation, table)}


def challenge_event(event: str, challenge) -> dict:
    """A challenge ``received``, ``sent``, or answered (its new status as the event)."""
    return {"type": "challenge", "event": event, "challenge": challenge_frame(challenge)}


def game_start(challenge) -> dict:
    """The table of an accepted challenge has started: both players go there."""
    frame = challenge_frame(challenge)
    return {"type": "game_start", "challenge": frame["id"], "table": frame["table"],
            "mode": frame["mode"]}


def table_started(table_id: int, url: str, name: str) -> dict:
    """A table you sat at and waited at has filled up and its game begun."""
    return {"type": "table_start", "table": {"id": table_id, "url": url}, "name": name}


def presence_changed(user, state) -> dict:
    """``user``'s presence for their contacts; ``state`` is a :class:`Presence`."""
    return {"type": "presence", "user": user_ref(user), **state.as_frame()}
