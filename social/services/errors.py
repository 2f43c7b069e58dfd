"""The errors every social service raises, and the one policy check before a write."""
from __future__ import annotations

from .. import policy


class SocialError(Exception):
    """A request the user may not make or that makes no sense; ``str()`` is user-facing."""

    code = "invalid"

    def __init__(self, message: str, code: str | None = None):
        super().__init__(message)
        if code:
            self.code = code


class NotFound(SocialError):
    """The object does not exist *for this user* (someone else's is reported the same way)."""

    code = "not_found"


class PolicyDenied(SocialError):
    def __init__(self, verdict: policy.Verdict):
        super().__init__(verdict.message, verdict.public_code)
        self.verdict = verdict


def policy_check(verdict: policy.Verdict) -> None:
    """Raise :class:`PolicyDenied` with ``verdict`` when it refuses."""
    if not verdict:
        raise PolicyDenied(verdict)
