"""The game rooms every deployment gets (created by a data migration)."""
from __future__ import annotations

# One row a room, in the order the lobby lists them.
_COLUMNS = ("slug", "name", "mode", "min_seats", "max_seats", "allow_rated", "description")
_ROWS = (
    ("beginners", "Beginners", "classic", 2, 2, False,
     "Classic Gin for learners: every game here is casual."),
    ("classic", "Classic Gin", "classic", 2, 2, True,
     "Knock with 10 or less, gin for 25, play to 100."),
    ("straight", "Straight Gin", "straight", 2, 2, True,
     "No knocking: only gin ends a hand."),
    ("oklahoma", "Oklahoma Gin", "oklahoma", 2, 2, True,
     "The first upcard sets the knock limit; spades double. Play to 150."),
    ("hollywood", "Hollywood Gin", "hollywood", 2, 2, True,
     "Three games scored at once."),
    ("rummy", "Basic Rummy", "rummy", 2, 4, True,
     "Meld, lay off and go out, for two to four players."),
    ("rummy-3-4", "Rummy 3-4 players", "rummy", 3, 4, True,
     "Basic Rummy at a full table of three or four."),
)
DEFAULT_ROOMS = [dict(zip(_COLUMNS, row, strict=True), order=order)
                 for order, row in enumerate(_ROWS)]


def ensure_default_rooms(room_model) -> None:
    """Create the default rooms that are missing (safe to run twice)."""
    for data in DEFAULT_ROOMS:
        fields = {k: v for k, v in data.items() if k != "slug"}
        room_model.objects.get_or_create(slug=data["slug"], defaults=fields)
