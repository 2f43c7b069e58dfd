"""Writes of the social app: each function is one transaction, and the live notifications it
causes are sent only after that transaction commits (their shapes are built in
:mod:`social.frames`).

Every function that lets one user reach another asks :mod:`social.policy` first and raises
:class:`PolicyDenied` with the verdict when refused; a refused call stores nothing.

One module per concern: ``errors`` (:class:`SocialError` and its kinds, the policy check),
``publish`` (frames after the commit), ``contacts`` (requests and contacts), ``blocks``
(blocking and who may message you), ``messages`` (private messages and conversations),
``invitations`` (to a table), ``challenges`` (to a game with a bot account), ``rows`` (the
pending row both answer), ``leaving`` (a closing account leaves). Callers use the names below:
``from social import services; services.message_send(...)``.
"""
from ..frames import message_frame  # the socket's ack carries it (social.consumers)
from .blocks import block_add, block_remove, message_policy_set
from .challenges import (
    CHALLENGE_TURN_SECONDS,
    challenge_accept,
    challenge_cancel,
    challenge_decline,
    challenge_send,
    challenges_expire,
)
from .contacts import (
    contact_remove,
    contact_request_accept,
    contact_request_cancel,
    contact_request_decline,
    contact_request_send,
)
from .errors import NotFound, PolicyDenied, SocialError
from .invitations import (
    invitation_accept,
    invitation_cancel,
    invitation_decline,
    invitation_send,
    invitation_send_new_table,
)
from .leaving import social_leave
from .messages import (
    conversation_delete,
    conversation_mark_read,
    message_recipient,
    message_send,
)

__all__ = [
    "CHALLENGE_TURN_SECONDS",
    "NotFound",
    "PolicyDenied",
    "SocialError",
    "block_add",
    "block_remove",
    "challenge_accept",
    "challenge_cancel",
    "challenge_decline",
    "challenge_send",
    "challenges_expire",
    "contact_remove",
    "contact_request_accept",
    "contact_request_cancel",
    "contact_request_decline",
    "contact_request_send",
    "conversation_delete",
    "conversation_mark_read",
    "invitation_accept",
    "invitation_cancel",
    "invitation_decline",
    "invitation_send",
    "invitation_send_new_table",
    "message_frame",
    "message_policy_set",
    "message_recipient",
    "message_send",
    "social_leave",
]
