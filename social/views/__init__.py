"""Pages and endpoints of the social app: parse, check, call a service, translate errors.

One module per page: ``answers`` (what every endpoint shares: the JSON or form answer, the
user named in the URL), ``contacts`` (the contacts page and requests), ``blocks`` (the
privacy page), ``messages`` (inbox and conversations), ``invitations``. ``social/urls.py``
uses the names below.
"""
from .blocks import block, block_by_name, privacy, unblock
from .contacts import (
    contact_remove,
    contacts,
    contacts_json,
    request_accept,
    request_cancel,
    request_decline,
    request_send,
)
from .invitations import (
    invitation_accept,
    invitation_cancel,
    invitation_decline,
    invitation_new_table,
    invitation_send,
    invitations,
)
from .messages import conversation, conversation_delete, conversation_read, history, inbox, unread

__all__ = [
    "block",
    "block_by_name",
    "contact_remove",
    "contacts",
    "contacts_json",
    "conversation",
    "conversation_delete",
    "conversation_read",
    "history",
    "inbox",
    "invitation_accept",
    "invitation_cancel",
    "invitation_decline",
    "invitation_new_table",
    "invitation_send",
    "invitations",
    "privacy",
    "request_accept",
    "request_cancel",
    "request_decline",
    "request_send",
    "unblock",
    "unread",
]
