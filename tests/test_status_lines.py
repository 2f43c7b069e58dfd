"""The status line Daphne writes: Twisted's table of reason phrases lacks 429, so a rate
limit (login, messages, the bot API) went out as "HTTP/1.1 429 Unknown Status"
(``ginsite.runtime.name_statuses``, installed by ``ginsite.asgi`` in the web process)."""
from __future__ import annotations

import pytest

from ginsite.runtime import MISSING_REASONS, name_statuses


def test_a_rate_limit_goes_out_as_too_many_requests():
    http = pytest.importorskip("twisted.web.http")
    requesthelper = pytest.importorskip("twisted.web.test.requesthelper")
    name_statuses()
    channel = requesthelper.DummyChannel()
    request = http.Request(channel, False)
    request.method, request.uri, request.clientproto = b"GET", b"/", b"HTTP/1.1"
    request.setResponseCode(429)
    request.write(b"slow down")
    assert channel.transport.written.getvalue().startswith(
        b"HTTP/1.1 429 Too Many Requests\r\n")
    # every code the site names is one Twisted lacked, and named once
    name_statuses()
    assert {code: http.RESPONSES[code] for code in MISSING_REASONS} == MISSING_REASONS


def test_asgi_installs_it():
    from pathlib import Path

    source = (Path(__file__).resolve().parents[1] / "ginsite" / "asgi.py").read_text()
    assert "\nname_statuses()\n" in source
