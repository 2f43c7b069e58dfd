"""A request line or header line longer than Daphne reads (Twisted's 16 KB line limit) is
answered, not dropped: ``414 URI Too Long`` for the request line (a link of 20,000
characters), ``431 Request Header Fields Too Large`` for a header. Twisted closed the
connection with no answer at all, which a browser shows as an empty response. Installed by
``ginsite.asgi``, so only in the web process; a proxy in front answers the same itself."""
from __future__ import annotations

from typing import Any

TOO_LONG = {
    True: (b"414 URI Too Long", b"The address is too long."),
    False: (b"431 Request Header Fields Too Large", b"A header of the request is too long."),
}


def _answer(channel: Any, line: bytes) -> None:
    # (Twisted keeps "the request line is still to come" in a private flag)
    first = bool(getattr(channel, "_HTTPChannel__first_line", 0))
    status, text = TOO_LONG[first]
    channel.transport.write(
        b"HTTP/1.1 " + status + b"\r\nContent-Type: text/plain; charset=utf-8\r\n"
        b"Content-Length: " + str(len(text)).encode() + b"\r\nConnection: close\r\n\r\n" + text)
    channel.transport.loseConnection()


def answer_long_lines() -> None:
    """Make Twisted's HTTP channel answer a line over its limit (see the module)."""
    try:
        from twisted.web import http
    except ImportError:  # (not under Daphne)
        return
    http.HTTPChannel.lineLengthExceeded = _answer
