"""Comparing a secret someone sent (an invite link's token, a signature) with the one we
keep, in constant time, whatever they sent.

``secrets.compare_digest`` and ``hmac.compare_digest`` raise ``TypeError`` on a ``str`` with
a character outside ASCII, so ``?invite=ü`` on a private table's page, socket or seat, or a
relay header ``ü``, answered 500 where a wrong token answers 403. Here both sides are compared
as UTF-8 bytes (a lone surrogate escaped), and anything but a string is simply not the
secret."""
from __future__ import annotations

import hmac


def _bytes(text: str) -> bytes:
    return text.encode("utf-8", "backslashreplace")


def same_secret(given: object, expected: str) -> bool:
    """``given`` is the non-empty secret ``expected`` (constant time in their length)."""
    if not isinstance(given, str) or not given or not expected:
        return False
    return hmac.compare_digest(_bytes(given), _bytes(expected))
