"""Text that people type to each other (table chat, private messages)."""
from __future__ import annotations

import unicodedata

# Nothing shows of these alone: formats (zero-width spaces and joiners, direction marks),
# controls, separators. An emoji sequence holds joiners, and shows by its other characters.
_INVISIBLE = ("Cf", "Cc", "Zs", "Zl", "Zp")


def shows_something(text: str) -> bool:
    """Whether ``text`` has a character that shows: a line of zero-width spaces alone was
    accepted as a chat line, and showed as a name and nothing after it."""
    return any(not ch.isspace() and unicodedata.category(ch) not in _INVISIBLE for ch in text)
