"""Text that people type for others to read (table chat, private messages, names)."""
from __future__ import annotations

import unicodedata

# Nothing shows of these alone: formats (zero-width spaces and joiners, direction marks),
# controls, separators. An emoji sequence holds joiners, and shows by its other characters.
_INVISIBLE = ("Cf", "Cc", "Zs", "Zl", "Zp")


# Bidirectional overrides and isolates can make text display as something else: a link's
# "…/\u202egpj.exe" reads "…/exe.jpg".
BIDI_CONTROLS = frozenset(chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A)))
CONTROLS_MESSAGE = "Remove the invisible control characters from this text."


def has_controls(text: str, *, allow: str = "") -> bool:
    """Whether ``text`` holds a control character (a bell, an escape, a NUL...) or a
    bidirectional override, apart from those in ``allow`` (a message's line breaks)."""
    return any(ch not in allow and (ch in BIDI_CONTROLS or unicodedata.category(ch) == "Cc")
               for ch in text)


def shows_something(text: str) -> bool:
    """Whether ``text`` has a character that shows: a line of zero-width spaces alone was
    accepted as a chat line, and showed as a name and nothing after it."""
    return any(not ch.isspace() and unicodedata.category(ch) not in _INVISIBLE for ch in text)
