"""Two rules of what happens at a table's seats, read where frames are built (a frame's
``you``) and where the services act, so that the page says what the server will do:
whether a player may ask for a hint, and whether a game goes on when players leave it. Pure
functions of a few counts and flags: no models, no queries."""
from __future__ import annotations

from collections.abc import Sequence


def hints_allowed(*, rated: bool, bot_seats: Sequence[bool], seat: int | None) -> bool:
    """Whether the player at ``seat`` may ask for a hint: a casual table where every other
    seat is the computer (``bot_seats[i]``: seat i is a computer level). Never against a
    person, and never in a rated game."""
    if seat is None or rated:
        return False
    return all(bot for i, bot in enumerate(bot_seats) if i != seat)


def game_goes_on(seat_count: int, staying: int, people_staying: int) -> bool:
    """The one rule of whether a game goes on when players leave it (a resignation, a
    timeout forfeit, a claim that they are gone): at a table of three or four where, besides
    the computers playing for earlier leavers, ``staying`` seats still play for a place (two
    at least) and ``people_staying`` of them are people (one at least). Else it ends.
    ``services.departures`` applies it; a frame's ``you`` (``frames.you_data``) tells the
    client what resigning or claiming would do (``resign_goes_on``, ``claim_goes_on``)."""
    return seat_count >= 3 and staying >= 2 and people_staying >= 1
