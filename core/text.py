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


# Joiners that some scripts need between letters (Persian's ZWNJ) and emoji sequences use
# (ZWJ): the only format characters a name may hold.
JOINERS = frozenset("\u200c\u200d")
HIDDEN_MESSAGE = ("Remove the invisible characters from this name (a zero-width space or a "
                  "soft hyphen, say): they make it look like a name it is not.")
# Characters that are not format characters but show nothing either: the combining grapheme
# joiner, the Hangul fillers, the blank braille pattern.
_BLANK = frozenset("\u034f\u115f\u1160\u3164\uffa0\u2800")


def _is_variation_selector(ch: str) -> bool:
    return "\ufe00" <= ch <= "\ufe0f" or "\U000e0100" <= ch <= "\U000e01ef"


def has_hidden(text: str) -> bool:
    """Whether ``text`` holds a character that shows nothing, other than the joiners and a
    variation selector after a symbol (an emoji's): a zero-width space, a soft hyphen, a
    combining grapheme joiner or a Hangul filler made "bob2" a display name that was not
    bob2's username, and showed as it."""
    for i, ch in enumerate(text):
        if ch in _BLANK or (unicodedata.category(ch) == "Cf" and ch not in JOINERS):
            return True
        if _is_variation_selector(ch) and (
                i == 0 or unicodedata.category(text[i - 1])[0] in "LN"):
            return True
    return False


# Cyrillic and Greek letters drawn like Latin ones, read as those: "bоb2" with a Cyrillic
# "о" showed as bob2. Read before case folding, as each case looks: a capital eta is an H,
# a small one an n. Not Unicode's whole confusables table: the letters a name is most easily
# forged with.
_LOOKALIKES = str.maketrans({
    # Cyrillic capitals, then small letters ("в", "н", "т" are small capitals' shapes)
    "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P",
    "С": "C", "Т": "T", "Х": "X", "У": "Y", "Ѕ": "S", "І": "I", "Ј": "J", "Ԁ": "D",
    "а": "a", "в": "b", "е": "e", "һ": "h", "і": "i", "ј": "j", "к": "k", "м": "m",
    "н": "h", "о": "o", "р": "p", "с": "c", "ԁ": "d", "ѕ": "s", "т": "t", "у": "y",
    "х": "x", "ɡ": "g", "Ь": "b", "ь": "b",
    # Greek capitals, then small letters
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M",
    "Ν": "N", "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X",
    "α": "a", "β": "b", "ε": "e", "η": "n", "ι": "i", "κ": "k", "μ": "u", "ν": "v",
    "ο": "o", "ρ": "p", "τ": "t", "υ": "u", "χ": "x",
})


# A capital "I" is a small "l" in the site's sans-serif font (one stroke): "aIice" passed for
# alice. Read before case folding, and only in ``skeleton(..., capital_i=True)``: folded, an
# "I" is an "i", and "ali" would have passed for "all".
_CAPITAL_I = str.maketrans({"I": "l", "Ι": "l", "І": "l"})


# Latin letters drawn as another with a stroke or a bar through it, which no decomposition
# takes apart (read after case folding): "ałice" passed for alice.
_STROKED = str.maketrans({
    "ł": "l", "ƚ": "l", "ø": "o", "ɵ": "o", "đ": "d", "ð": "d", "ɖ": "d", "ħ": "h",
    "ŧ": "t", "ı": "i", "ɨ": "i", "ȷ": "j", "ƀ": "b", "ɍ": "r", "ȼ": "c", "ɇ": "e",
    "ɉ": "j", "ƶ": "z", "ǥ": "g", "ɏ": "y", "ᵽ": "p",
})
# The combining marks of the Latin, Greek and Cyrillic alphabets and the general ones
# (diacritical marks, their extended and supplement blocks, marks for symbols, half marks).
_MARK_BLOCKS = ((0x0300, 0x036F), (0x1AB0, 0x1AFF), (0x1DC0, 0x1DFF), (0x20D0, 0x20FF),
                (0xFE20, 0xFE2F))


def _is_accent(ch: str) -> bool:
    o = ord(ch)
    return any(lo <= o <= hi for lo, hi in _MARK_BLOCKS)


def _unmarked(text: str) -> str:
    """``text`` without its accents (the marks of ``_MARK_BLOCKS``, after decomposition): at
    a name's size "álice", "ålice" and "bόb" (a Greek "ό") pass for alice and bob. Other
    scripts' marks (an Indic vowel sign) are letters of the name and stay."""
    bare = "".join(ch for ch in unicodedata.normalize("NFD", text) if not _is_accent(ch))
    return unicodedata.normalize("NFC", bare)


def _among_capitals(text: str) -> str:
    """``text`` with each small "l" among capitals read as the capital "I" it looks like:
    "ALlCE" passed for ALICE, alice's username in capitals. Among capitals: the letters up to
    two places on either side, at least two of them, are all capitals ("Al" stays Al)."""
    if "l" not in text:
        return text
    chars = list(text)
    for i, ch in enumerate(text):
        if ch != "l":
            continue
        near = [c for c in text[max(0, i - 2):i] + text[i + 1:i + 3] if c.isalpha()]
        if len(near) >= 2 and all(c.isupper() for c in near):
            chars[i] = "I"
    return "".join(chars)


def skeleton(text: str, *, capital_i: bool = False) -> str:
    """What ``text`` looks like, for telling names apart: NFKC, lookalike Cyrillic and Greek
    letters read as the Latin ones they look like, case folded, and everything that shows
    nothing dropped (format characters, variation selectors, fillers). ``capital_i``: the
    second, looser look (a name is taken when either look is another's): a capital "I" read
    as the small "l" it looks like, and the accents taken off, first (so that an accented
    Greek or Cyrillic lookalike is read as its Latin letter too), and the strokes of letters
    such as "ł" and "ø", after case folding (``_unmarked``, ``_STROKED``). In either look a
    small "l" among capitals is the capital "I" it looks like (``_among_capitals``)."""
    normal = _among_capitals(unicodedata.normalize("NFKC", text).translate(_LOOKALIKES))
    if capital_i:
        normal = _unmarked(normal.translate(_CAPITAL_I))
    folded = normal.translate(_LOOKALIKES).casefold()
    if capital_i:
        folded = folded.translate(_STROKED)
    return "".join(ch for ch in folded
                   if unicodedata.category(ch) != "Cf" and ch not in _BLANK
                   and not _is_variation_selector(ch))
