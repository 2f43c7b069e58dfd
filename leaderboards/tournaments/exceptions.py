"""Errors of the tournament services: each has a ``code`` the views map to a status and a
``message`` shown to the player as it is."""
from __future__ import annotations


class TournamentError(Exception):
    code = "invalid"

    def __init__(self, message: str, code: str | None = None):
        super().__init__(message)
        self.message = message
        if code:
            self.code = code


class NotFound(TournamentError):
    code = "not_found"


class NotAllowed(TournamentError):
    code = "not_allowed"
