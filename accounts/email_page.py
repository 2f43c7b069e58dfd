"""The e-mail addresses page (allauth's ``EmailView``), which says why a link was not sent.

"Send the link again" right after a link went out did nothing that anyone could see: the
``confirm_email`` rate limit (one per address per window, ``ACCOUNT_RATE_LIMITS``) skipped the
mail and allauth added no message. This page says so, with the time to wait.
"""
from __future__ import annotations

import re

from allauth.account.views import EmailView
from django.conf import settings
from django.contrib import messages

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def resend_wait_minutes() -> int:
    """The minutes one address waits between two links (``confirm_email``'s window)."""
    rule = str((getattr(settings, "ACCOUNT_RATE_LIMITS", None) or {}).get("confirm_email") or "")
    found = re.match(r"\s*\d+\s*/\s*(\d*)\s*([smhd])", rule)
    if not found:
        return 3
    seconds = int(found.group(1) or 1) * _UNITS[found.group(2)]
    return max(1, -(-seconds // 60))


class EmailPage(EmailView):
    def _action_send(self, request, *args, **kwargs):
        response = super()._action_send(request, *args, **kwargs)
        address = self._get_email_address(request)
        if address is not None and not self._did_send_verification_email:
            wait = resend_wait_minutes()
            messages.info(request, (
                f"A link was sent to {address.email} a moment ago: look for it in that inbox "
                f"(and its spam folder). You can ask for another in {wait} "
                f"minute{'' if wait == 1 else 's'}."))
        return response

