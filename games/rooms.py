"""The game rooms every deployment gets (created by a data migration)."""
from __future__ import annotations

DEFAULT_ROOMS = [
    {
        "slug": "beginners", "name": "Beginners", "mode": "classic", "order": 0,
        "min_seats": 2, "max_seats": 2, "allow_rated": False,
        "description": "Classic Gin for learners: every game here is casual.",
    },
    {
        "slug": "classic", "name": "Classic Gin", "mode": "classic", "order": 1,
        "min_seats": 2, "max_seats": 2, "allow_rated": True,
        "description": "Knock with 10 or less, gin for 25, play to 100.",
    },
    {
        "slug": "straight", "name": "Straight Gin", "mode": "straight", "order": 2,
        "min_seats": 2, "max_seats": 2, "allow_rated": True,
        "description": "No knocking: only gin ends a hand.",
    },
    {
        "slug": "oklahoma", "name": "Oklahoma Gin", "mode": "oklahoma", "order": 3,
        "min_seats": 2, "max_seats": 2, "allow_rated": True,
        "description": "The first upcard sets the knock limit; spades double. Play to 150.",
    },
    {
        "slug": "hollywood", "name": "Hollywood Gin", "mode": "hollywood", "order": 4,
        "min_seats": 2, "max_seats": 2, "allow_rated": True,
        "description": "Three games scored at once.",
    },
    {
        "slug": "rummy", "name": "Basic Rummy", "mode": "rummy", "order": 5,
        "min_seats": 2, "max_seats": 4, "allow_rated": True,
        "description": "Meld, lay off and go out, for two to four players.",
    },
    {
        "slug": "rummy-3-4", "name": "Rummy 3-4 players", "mode": "rummy", "order": 6,
        "min_seats": 3, "max_seats": 4, "allow_rated": True,
        "description": "Basic Rummy at a full table of three or four.",
    },
]


def ensure_default_rooms(room_model) -> None:
    """Create the default rooms that are missing (safe to run twice)."""
    for data in DEFAULT_ROOMS:
        fields = {k: v for k, v in data.items() if k != "slug"}
        room_model.objects.get_or_create(slug=data["slug"], defaults=fields)
