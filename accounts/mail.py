"""The console email backend of local play: the email as Django's console backend prints it,
then a framed box with the links it asks the reader to open (the sign-up verification link,
a password reset), each on one line of its own. Django's output alone is hard to use: the
body is quoted-printable, so a long link is cut over two lines with an ``=`` at the break,
and it scrolls past among the worker's and the web server's lines (README: sign-up emails
are printed on the console of the run command)."""
from __future__ import annotations

import re

from django.core.mail.backends.console import EmailBackend as DjangoConsoleBackend

LINK = re.compile(r"https?://[^\s<>\"']+")
FRAME = "=" * 78


def links_to_open(body: str) -> list[str]:
    """The links of an email body a reader is asked to open: those with a path (the site's
    own address in the signature is not one of them), in order, once each."""
    seen: list[str] = []
    for link in LINK.findall(body or ""):
        link = link.rstrip(".,;:)")
        path = link.split("://", 1)[1].partition("/")[2]
        if path and link not in seen:
            seen.append(link)
    return seen


def framed_links(message) -> str:
    """The box printed after an email: who it is for, its subject, and its links."""
    links = links_to_open(message.body)
    if not links:
        return ""
    label = "Open this link to verify" if "confirm" in message.subject.lower() or any(
        "confirm" in link for link in links) else "Open this link"
    lines = [FRAME, f"  Email to {', '.join(message.to)}: {message.subject}"]
    lines += [f"  >>> {label}: {link}" for link in links]
    lines.append(FRAME)
    return "\n".join(lines) + "\n"


class ConsoleEmailBackend(DjangoConsoleBackend):
    """Django's console backend with the links framed after each email."""

    def write_message(self, message):
        super().write_message(message)
        box = framed_links(message)
        if box:
            self.stream.write(box)
