"""The ``?page=`` of a paged list, read one way everywhere (the leaderboards, the game
archives): a page number, or why it is not one."""
from __future__ import annotations

import re

NOT_A_PAGE = "A page is a number, 1 or more."


def page_asked(text: str | None) -> int:
    """The page ``?page=`` asks for: 1 when it is not given; ``ValueError(NOT_A_PAGE)`` when
    it is no whole number of 1 or more (a number of any length is past every last page)."""
    text = (text or "").strip()
    if not text:
        return 1
    digits = text.lstrip("0")
    if not re.fullmatch(r"[0-9]+", digits):  # (not digits, or 0)
        raise ValueError(NOT_A_PAGE)
    return int(digits) if len(digits) <= 18 else 10 ** 18


def pages_text(pages: int) -> str:
    """"1 page", "3 pages"."""
    return f"{pages} page{'' if pages == 1 else 's'}"
