"""Names kept for the site: a username, or a display name, that would read as the site
speaking (compared as they look: ``core.text.skeleton``). The sign-up (``adapter``) and the
profile (``services.display_name_taken``) both refuse them."""
from __future__ import annotations

from core.text import skeleton

RESERVED_NAMES = frozenset({
    "admin", "administrator", "root", "staff", "support", "help", "moderator", "mod",
    "system", "official", "site", "ginrummy", "gin-rummy", "gin_rummy", "webmaster",
    "security", "postmaster", "noreply", "no-reply", "anonymous", "nobody", "bot",
})
COMPUTER_MESSAGE = "Names beginning with “Computer” are kept for the site's computer players."
RESERVED_LOOKS = frozenset(skeleton(name) for name in RESERVED_NAMES)
RESERVED_MESSAGE = "That name is kept for the site: choose another."


def kept_for_the_site(name: str) -> str:
    """Why ``name`` is the site's (its computer players', or a reserved name), or ""."""
    look = skeleton(name)
    if look.startswith("computer"):
        return COMPUTER_MESSAGE
    if look in RESERVED_LOOKS or skeleton(name, capital_i=True) in RESERVED_LOOKS:
        return RESERVED_MESSAGE
    return ""
