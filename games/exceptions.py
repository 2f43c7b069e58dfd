"""Errors raised by the games services. Each carries the ``code`` of the protocol's error
frame (docs/protocol.md) and a message fit to show the user."""
from __future__ import annotations

from core.text import CONTROLS_MESSAGE


class GameServiceError(Exception):
    code = "error"
    default_message = "That is not possible."

    def __init__(self, message: str | None = None):
        super().__init__(message or self.default_message)
        self.message = message or self.default_message


class TableNotFound(GameServiceError):
    code = "not_found"
    default_message = "There is no such table."


class Forbidden(GameServiceError):
    code = "forbidden"
    default_message = "You may not do that at this table."


class BotAccountRefused(GameServiceError):
    """A bot account tried a person's way to a table (the lobby, a seat, a new table): bots
    play only through the API (docs/bot-api.md, "Bot accounts")."""
    code = "bot_account"
    default_message = ("Bot accounts do not sit at tables from the site: they play through "
                       "the API (challenges).")


class BotSessionRefused(BotAccountRefused):
    """A bot account's own session (a person signed in as the bot) tried to play, resign,
    leave or close at its table from the site: it may only watch there."""
    default_message = ("Bot accounts play through the API, with their token, not from the "
                       "site: this page only shows the game.")


class NotSeated(GameServiceError):
    code = "not_seated"
    default_message = "Only the players at this table may do that."


class LeftGame(NotSeated):
    """A person who left a game that goes on without them (a computer plays their seat)."""

    code = "left_game"
    default_message = ("You left this game: a computer plays your seat now, and your "
                       "place is fixed.")


class NotPlaying(GameServiceError):
    code = "not_playing"
    default_message = "The game is not in progress."


class NotOpen(GameServiceError):
    code = "not_open"
    default_message = "The game has already started."


class StaleVersion(GameServiceError):
    code = "stale_version"
    default_message = "The table has moved on; here is the current state."


class DuplicateAction(GameServiceError):
    code = "duplicate"
    default_message = "That move was already played."


class NotYourTurn(GameServiceError):
    code = "not_your_turn"
    default_message = "It is not your turn."


class NoHint(GameServiceError):
    """Hints are for casual games against the computer (``seat_rules.hints_allowed``)."""

    code = "no_hint"
    default_message = "Hints are only for casual games against the computer."


class RematchRefused(GameServiceError):
    """``games.hooks.rematch_refusal`` said no (a tournament match: the next game is the
    tournament's)."""

    code = "no_rematch"
    default_message = "There is no rematch at this table."


class InvalidAction(GameServiceError):
    code = "invalid_action"
    default_message = "That is not a move."


class IllegalAction(GameServiceError):
    code = "illegal_action"
    default_message = "That move is not allowed now."


class SeatTaken(GameServiceError):
    code = "seat_taken"
    default_message = "That seat is taken."


class TableFull(GameServiceError):
    code = "table_full"
    default_message = "Every seat at this table is taken."


class AlreadySeated(GameServiceError):
    code = "already_seated"
    default_message = "You already have a seat at this table."


class CannotClaim(GameServiceError):
    code = "cannot_claim"
    default_message = "You can claim the game only when an opponent has left."


# A seat refused by someone there who blocks the player, or whom the player blocks: the words
# of "You cannot message this user.", which tell nobody of a block (docs/social.md).
NOT_FOR_YOU = "You cannot sit at this table."


class SeatRefused(GameServiceError):
    """The seat was refused: a rated table's (a playban, a rating outside the table's range),
    or the player is busy (a tournament match in play)."""

    code = "seat_refused"
    default_message = "You may not sit at this rated table."

    def __init__(self, message: str | None = None, *, user_id: int | None = None):
        super().__init__(message)
        self.user_id = user_id  # whose seat: the reason is theirs to read, nobody else's


class InvalidSettings(GameServiceError):
    code = "invalid_settings"
    default_message = "Those table settings are not allowed."


class ChatEmpty(GameServiceError):
    code = "chat_empty"
    default_message = "Say something first."


class ChatControls(GameServiceError):
    code = "control_characters"
    default_message = CONTROLS_MESSAGE


class ChatTooLong(GameServiceError):
    code = "chat_too_long"
    default_message = "Chat lines are at most 300 characters."


class RateLimited(GameServiceError):
    code = "rate_limited"
    default_message = "You are sending messages too fast."


class TooManyTables(GameServiceError):
    """The player already holds seats at ``GAMES_MAX_WAITING_TABLES`` waiting tables, or
    ``GAMES_MAX_COMPUTER_TABLES`` games against the computer in play."""

    code = "too_many_tables"
    default_message = (
        "You already have the most tables waiting for players: start, close or leave one "
        "first (Your tables, on the Play page)."
    )


# ------------------------------------------------------------------------ analysis
# Each carries the HTTP status its refusal is answered with (docs/analysis.md).


class AnalysisRefused(GameServiceError):
    code = "refused"
    status = 400
    default_message = "This game cannot be analysed."


class AnalysisNotFound(AnalysisRefused):
    """No such game, or one the user may not see (answered like a missing game)."""

    code = "not_found"
    status = 404
    default_message = "No such game."


class AnalysisSignIn(AnalysisRefused):
    code = "sign_in"
    status = 403
    default_message = "Sign in to ask for an analysis."


class AnalysisBusy(AnalysisRefused):
    """The user's one analysis at a time is still queued or running."""

    code = "busy"
    status = 409
    default_message = "Your analysis of another game is still running: one at a time."


class AnalysisNoRecord(AnalysisRefused):
    code = "no_record"
    status = 400
    default_message = "This game has no record that can be replayed, so it cannot be analysed."


# ------------------------------------------------------------------------ imported records


class ImportNotFound(GameServiceError):
    """No such imported record, or one the user did not import (answered as missing)."""

    code = "not_found"
    status = 404
    default_message = "No such imported record."


class ImportNotKept(GameServiceError):
    """A record that is shown but cannot be kept: too large, or too many kept already."""

    code = "not_kept"
    status = 400
    default_message = "This record cannot be kept."
