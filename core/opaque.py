"""Numbers that tell things apart and nothing more: keyed by the site's secret, the same for
the same row, in no order, so that they count nothing (a chat line's row id let a public
table's chatter count the lines said at private tables: a privacy audit)."""
from __future__ import annotations

from django.utils.crypto import salted_hmac


def keyed_number(kind: str, n: int) -> int:
    """Row ``n`` of ``kind``'s public number: 48 bits, a safe integer in JSON (Django's
    ``salted_hmac`` of the site's secret, salted by ``kind``)."""
    digest = salted_hmac(f"ginsite.opaque.{kind}", str(n), algorithm="sha256").digest()
    return int.from_bytes(digest[:6], "big")
