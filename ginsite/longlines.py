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


# how long the rest of a refused request is read (and dropped) before the connection is cut
DRAIN_SECONDS = 5.0


def _answer(channel: Any, line: bytes) -> None:
    # (Twisted keeps "the request line is still to come" in a private flag)
    first = bool(getattr(channel, "_HTTPChannel__first_line", 0))
    status, text = TOO_LONG[first]
    transport = channel.transport
    transport.write(
        b"HTTP/1.1 " + status + b"\r\nContent-Type: text/plain; charset=utf-8\r\n"
        b"Content-Length: " + str(len(text)).encode() + b"\r\nConnection: close\r\n\r\n" + text)
    # The rest of the request is read and dropped, and only our side is closed: a socket
    # closed with input still unread sends a reset, which can reach the client before the
    # answer and lose it. The client closes its side once answered; one that does not is cut.
    channel.dataReceived = lambda data: None
    if hasattr(transport, "loseWriteConnection"):
        from twisted.internet import reactor

        transport.loseWriteConnection()
        reactor.callLater(DRAIN_SECONDS, transport.abortConnection)  # type: ignore[attr-defined]
    else:
        transport.loseConnection()


def answer_long_lines() -> None:
    """Make Twisted's HTTP channel answer a line over its limit (see the module)."""
    try:
        from twisted.web import http
    except ImportError:  # (not under Daphne)
        return
    http.HTTPChannel.lineLengthExceeded = _answer
